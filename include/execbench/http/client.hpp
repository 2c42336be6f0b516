#pragma once

#include "execbench/http/failure.hpp"
#include "execbench/http/url.hpp"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace execbench::http {

// The pieces of a downstream HTTP/1.1 call that models::downstream_client puts together: request bytes, response
// parser, judging the answer, and when a stale pooled connection may be retried.

/// Appends a GET request for `target` on `server` to `out`: keep-alive, or with `Connection: close` when
/// `keep_alive` is false (a client that opens a connection per call).
void write_get_request(const url& server, std::string_view target, std::string& out, bool keep_alive = true);

/// A parser for a downstream response; the body is kept (bounded by limits::max_downstream_body_bytes).
using downstream_parser = boost::beast::http::response_parser<boost::beast::http::string_body>;

/// Prepares a fresh parser with execbench's limits.
void configure(downstream_parser& parser);

/// The detail of a call whose connect(2) found no free local port (EADDRNOTAVAIL), whichever client made it.
inline constexpr std::string_view no_ephemeral_port_detail =
    "EADDRNOTAVAIL: no ephemeral port left for a new connection to the downstream (connections in use and in "
    "TIME_WAIT fill net.ipv4.ip_local_port_range)";

/// How a downstream call ended: nothing on success, otherwise the failure and a detail for the error body.
struct call_outcome {
    std::optional<failure> failed;
    std::string detail;

    /// A successful outcome.
    static call_outcome success() { return {}; }
    /// A failed outcome from an I/O or parse error.
    static call_outcome from_error(const boost::system::error_code& ec);
};

/// Judges a complete downstream response: a 2xx succeeds; anything else is a bad answer naming the status.
call_outcome judge_response(const downstream_parser& parser);

/// True when a failure on a reused keep-alive connection should be retried once on a fresh one: the server
/// closed the idle connection before our request reached it.
bool is_stale_connection_error(const boost::system::error_code& ec) noexcept;

}  // namespace execbench::http
