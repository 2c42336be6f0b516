#pragma once

#include "execbench/endpoints/request_counters.hpp"
#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http2/server_session.hpp"

#include "request_state.hpp"
#include "server_support.hpp"
#include "transport.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace execbench::models {

// What every model's HTTP/2 connection shares: the session's requests into request cycles and their answers back,
// and the connection's counting. How a model waits, reads and writes is its own (docs/http2.md).

/// Counts an HTTP/2 connection on /metrics for as long as it lives: opened now, and at its end the streams its client
/// opened and the GOAWAY it was sent, whatever path closed it.
class h2_connection_scope {
public:
    /// Counts `session`'s connection in `counters`.
    h2_connection_scope(const http2::server_session& session, endpoints::request_counters& counters) noexcept
        : session_(session), counters_(counters)
    {
        counters_.h2_connection_opened();
    }
    ~h2_connection_scope() { counters_.h2_connection_closed(session_.streams_opened(), session_.goaway_sent()); }
    h2_connection_scope(const h2_connection_scope&) = delete;
    h2_connection_scope& operator=(const h2_connection_scope&) = delete;

private:
    const http2::server_session& session_;
    endpoints::request_counters& counters_;
};

struct io_group;

/// A stream of an HTTP/2 connection whose requests are fibers or coroutines (fiber, coro): its request's state and
/// the timer its fiber or coroutine parks on (a delay, an interval, or for the session to take its last event),
/// cancelled to wake it. Its state goes back to the group's spares by the model's hand, once the stream is done.
struct h2_slot {
    /// A slot whose request state comes from `group`'s spares, its timer on `group`'s io_context.
    h2_slot(io_group& group, endpoints::app& app);
    std::unique_ptr<request_state> state;
    timer_type timer;
    bool wanted = false;     ///< the session took its last event: the next may be made
    bool cancelled = false;  ///< the client reset it, or the connection closed
};

/// Tells the slot serving `e`'s stream, if one still does, that the client reset the stream (`cancelled`) or that the
/// session took its last event (`wants_data`), and wakes its fiber or coroutine.
void h2_wake_slot(const std::unordered_map<std::int32_t, h2_slot*>& streams, const http2::event& e);

/// Ends the request `slot` served on `stream`: a cancelled one is counted unfinished; else its answer goes to
/// `session`, unless `went_on` to `/stream`, whose events (the last finishing it) are already given.
void h2_end_slot(http2::server_session& session, std::int32_t stream, h2_slot& slot, bool went_on);

/// The bytes `buffer` holds (a connection's first bytes, which tell its protocol).
inline std::string_view bytes_of(const boost::beast::flat_buffer& buffer) noexcept
{
    return {static_cast<const char*>(buffer.data().data()), buffer.data().size()};
}

/// What reading an HTTP/2 connection came to.
enum class h2_read : std::uint8_t {
    again,   ///< wait for more bytes and read again
    stop,    ///< read no more: the session refused the input (GOAWAY is queued) or the client finished sending (the
             ///< streams in flight are still answered); close once the session is `finished`
    failed,  ///< the connection failed: close it now
};

/// Reads what has arrived on `stream` into `session`, without waiting: a few reads at most, so a client that never
/// pauses cannot hold the thread. Reads go through one buffer per thread, which the session empties at once, so no
/// connection holds a read buffer of its own between reads.
h2_read h2_read_arrived(transport& stream, http2::server_session& session);

/// Waits, without a thread or a fiber, for bytes on `link`'s connection, reads them into its session (`h2_read_arrived`)
/// and calls `on_progress(link)`, again while the session reads on; `on_close(*link)` when the wait or the read fails.
/// The callbacks run on `executor`: the connection's strand, or its socket's own executor where one thread owns it.
/// `Link` is a model's HTTP/2 connection: `conn->stream`, `session`, `reading` and `closed`.
template <class Link, class Executor, class OnProgress, class OnClose>
void h2_wait_bytes(const std::shared_ptr<Link>& link, const Executor& executor, OnProgress on_progress,
                   OnClose on_close)
{
    if (!link->reading || link->closed)
        return;
    link->conn->stream.async_wait(
        boost::asio::socket_base::wait_read,
        boost::asio::bind_executor(executor, [link, executor, on_progress, on_close](boost::system::error_code ec) {
            if (ec || link->closed)
                return on_close(*link);
            const auto got = h2_read_arrived(link->conn->stream, link->session);
            if (got == h2_read::failed)
                return on_close(*link);  // the client went away
            link->reading = got == h2_read::again;
            on_progress(link);
            h2_wait_bytes(link, executor, on_progress, on_close);
        }));
}

/// Which of the connection's clocks runs, by what the connection waits for.
enum class h2_deadline : std::uint8_t {
    none,    ///< every open stream waits on the server (a delay, a call): no clock, as an HTTP/1.1 request in flight
    idle,    ///< no stream open: the idle timeout (the header timeout over TLS before the first request)
    header,  ///< a stream's request is still arriving: the header timeout
    write,   ///< a write is in flight or an answer waits on the client's window: the write timeout
};

/// The clock that runs for a connection whose session is `session`, with `served` streams in the model's hands
/// and a write in flight when `writing`.
h2_deadline h2_deadline_state(const http2::server_session& session, std::size_t served, bool writing) noexcept;

/// How long the clock `d` allows from now on `stream`; empty for `none`. A model sets its deadline only when the
/// clock changes, so a client trickling bytes does not restart it.
std::optional<std::chrono::milliseconds> h2_deadline_after(h2_deadline d, const transport& stream,
                                                           const http::timeouts& timeouts) noexcept;

/// Begins the request of `e`, which `session.next_event` put into `cycle.storage`: true when its stages run, false
/// when `cycle.response` already holds the answer (an error, a body past the limit). HTTP/2 drains by GOAWAY, not by
/// closing after an answer, so the cycle never hears that the server is stopping.
bool h2_begin(const http2::event& e, endpoints::request_cycle& cycle);

/// Hands the answer in `cycle.response` to `session` for stream `stream` and counts the request finished.
void h2_answer(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle);

/// Starts `/stream`'s answer on `stream`: its head, then event 0 (`h2_push_event`). False when the stream is gone.
bool h2_begin_events(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle,
                     std::string& scratch);

/// Gives stream `stream` event `index` of its `/stream` answer (made in `scratch`); after the last one the request
/// is counted finished. True when more events follow.
bool h2_push_event(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle,
                   std::uint32_t index, std::string& scratch);

}  // namespace execbench::models
