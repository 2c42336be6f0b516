#pragma once

#include "execbench/endpoints/request_counters.hpp"
#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/limits.hpp"

#include "request_state.hpp"
#include "server_support.hpp"
#include "transport.hpp"

namespace execbench::models {

/// A connection as `fiber` and `coro` hold it between waits: its stream (the socket, or TLS over it) and its deadline,
/// which the group's deadline sweep watches for as long as the connection lives, and its place in the open-connection
/// count. No stack and no request state: those are taken when a request's first bytes arrive.
struct watched_connection {
    /// Serves `s` (over TLS from `tls` when not null), watches its deadline on `sweep` and counts it open in `counters`.
    /// HTTP/2 is served when `http2` (then the first bytes tell the protocol, `read_arrived`).
    watched_connection(socket_type s, const tls::server_context* tls, deadline_sweep& sweep,
                       endpoints::request_counters& counters, bool http2)
        : stream(std::move(s), tls, counters), deadlines(sweep), scope(counters), protocol_told(!http2)
    {
        deadlines.watch(deadline, stream.native_handle());
    }
    ~watched_connection() { deadlines.forget(deadline); }
    watched_connection(const watched_connection&) = delete;
    watched_connection& operator=(const watched_connection&) = delete;

    /// Stops watching the deadline (before the descriptor is closed and its number reused), then closes.
    void close();

    transport stream;
    models::deadline deadline;
    deadline_sweep& deadlines;
    endpoints::connection_scope scope;
    /// Its first bytes said which protocol it speaks (or HTTP/2 is off): HTTP/1.1 requests are all it reads now.
    bool protocol_told;
    /// It speaks HTTP/2: `read_arrived` said `arrival::http2`, and its first bytes are in the request's buffer.
    bool speaks_http2 = false;
};

/// How far a request got while it was read without waiting.
enum class arrival {
    planned,     ///< read, parsed and planned: the stages run
    answered,    ///< read and parsed, and the response already holds the answer (an error)
    incomplete,  ///< the rest has not arrived yet
    closed,      ///< reading failed with nobody left to answer (the peer left, a deadline passed)
    http2,       ///< the connection's first bytes (in the buffer) say it speaks HTTP/2: serve it as such
};

/// Reads what has arrived on `conn` into `state` without waiting, and plans the request once it is whole. The header
/// clock (`timeouts.header`) starts with the request's first byte; read buffers are lent by `spares` only while bytes
/// are read and parsed. While `stopping`, the connection closes after the answer.
arrival read_arrived(watched_connection& conn, request_state& state, request_spares& spares,
                     const http::timeouts& timeouts, bool stopping);

/// Reading a request failed with `ec`: answered when the client should hear why (then the connection closes after the
/// answer), else closed.
arrival reading_failed(endpoints::request_cycle& cycle, const boost::system::error_code& ec);

}  // namespace execbench::models
