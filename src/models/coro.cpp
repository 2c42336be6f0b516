#include "coro.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/coro_task.hpp"
#include "execbench/models/offload_pool.hpp"

#include "h2_support.hpp"
#include "io_server.hpp"
#include "pg_async_run.hpp"
#include "request_state.hpp"
#include "watched_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>
#include <unordered_map>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using clock = std::chrono::steady_clock;

/// A coroutine of this model, resumed on its io_context (include/execbench/models/coro_task.hpp).
template <class T = void>
using task = coro_task<T>;
// Every wait completes with its results as values, the error code first, not as an exception: `auto [ec] = co_await
// ...`. A `deferred` operation is started straight from the awaiting frame, with no frame of its own.
constexpr auto use_values = asio::as_tuple(asio::deferred);

// GCC 12 miscompiles two coroutine patterns (Boost.Cobalt's docs warn against 12.1 and 12.2): a temporary with a
// destructor that lives across a `co_await` in one full-expression, and a lambda coroutine's captures (gone once the
// lambda is). So no coroutine here is a lambda, coroutines take references, trivial values or the socket moved in, and
// each `co_await` stands alone in its statement (tests/models/coro_patterns_test.cpp).

class coro_server final : public io_server {
public:
    // An io_group per thread, as the loop: a connection's coroutine always resumes on the thread it was accepted to.
    explicit coro_server(const server_context& context) : io_server(context, context.threads, 1), app_(context.app) {}

    ~coro_server() override { shutdown(clock::now()); }

    void start() override
    {
        start_serving([this](socket_type socket, io_group& loop) {
            // Called on the loop's thread, so the coroutine runs to its first wait before this returns, having moved
            // the socket into its frame (do_session).
            coro_start(loop.io, do_session(socket, loop));
        });
    }

private:
    /// A connection's life: wait for a request's first byte, serve it, again. Between requests its frame holds the
    /// socket, its deadline and no request state; a pipelined request already buffered is served without waiting,
    /// after one turn through the loop so a long pipeline cannot starve the loop's other connections. The accepted
    /// socket is taken by reference and moved before the first wait, so the frame holds one socket, not a copy of
    /// the argument beside it (40 B an idle connection).
    task<> do_session(socket_type& accepted, io_group& loop)
    {
        watched_connection conn(std::move(accepted), context_.tls, loop.deadlines, app_.counters(), context_.http2);
        std::unique_ptr<request_state> state;
        for (;;) {
            if (state && state->buffer.size() != 0) {
                conn.deadline.expires_after(context_.timeouts.header);
                co_await coro_next_turn{};
            } else {
                if (state)
                    loop.spares.give(std::move(state));
                // Waiting for the first byte is idleness; once it arrives the header clock runs.
                conn.deadline.expires_after(conn.stream.first_byte_timeout(context_.timeouts));
                auto [ec] = co_await conn.stream.async_wait(tcp::socket::wait_read, use_values);
                if (ec)
                    break;  // the wait failed (the server is stopping): nothing to answer
                state = loop.spares.take(app_);
            }
            state->parser.emplace(state->cycle.storage);
            const bool keep_open = co_await serve(conn, *state, loop);
            if (!keep_open)
                break;
        }
        if (conn.speaks_http2) {
            const std::string first(bytes_of(state->buffer));
            state->buffer.consume(state->buffer.size());
            loop.spares.give(std::move(state));
            co_await serve_h2(conn, first, loop);
        }
        conn.close();
    }

    // HTTP/2: the connection's coroutine reads, a writer coroutine writes (one write in flight), and each stream's
    // request is a coroutine of its own, which waits as `serve` does. They share the connection's `h2_link`, which
    // lives in the reader's frame until the writer and every stream have ended. Waking one another is cancelling
    // the timer it waits on (a timer that never expires): they all run on the loop's one thread, so a coroutine that
    // is not waiting when woken finds what it was woken for before it waits again.

    /// What the reader, the writer and the streams of one connection share.
    struct h2_link {
        h2_link(watched_connection& c, io_group& l, const server_context& context)
            : conn(c), loop(l), session(context.h2_limits), scope(session, context.app.counters()),
              wake_writer(l.io.get_executor()), wake_reader(l.io.get_executor())
        {
            wake_writer.expires_at(timer_type::time_point::max());
            wake_reader.expires_at(timer_type::time_point::max());
        }
        watched_connection& conn;
        io_group& loop;
        http2::server_session session;
        h2_connection_scope scope;
        std::unordered_map<std::int32_t, h2_slot*> streams;  // each owned by its stream's coroutine
        http::request_storage storage;                        // where the next request arrives
        std::string scratch;                                  // a /stream event being made
        timer_type wake_writer;                               // the writer waits on it for frames to write
        timer_type wake_reader;                               // the reader waits on it for the others to end
        std::size_t running = 0;                              // the writer and the streams' coroutines
        h2_deadline clock = h2_deadline::none;
        bool writing = false;
        bool closed = false;
    };

    /// Serves a connection whose first bytes `first` say it speaks HTTP/2, until it closes.
    task<> serve_h2(watched_connection& conn, const std::string& first, io_group& loop)
    {
        h2_link link(conn, loop, context_);
        ++link.running;
        coro_start(loop.io, write_h2(link));
        bool reading = link.session.receive(first);
        on_h2_progress(link);
        while (reading && !link.closed) {
            auto [ec] = co_await conn.stream.async_wait(tcp::socket::wait_read, use_values);
            if (ec) {
                close_h2(link);  // the wait failed (the server is stopping)
                break;
            }
            if (link.closed)
                break;
            const auto got = h2_read_arrived(conn.stream, link.session);
            if (got == h2_read::failed)
                close_h2(link);  // the client went away
            reading = got == h2_read::again;
            on_h2_progress(link);
        }
        // Not reading any more: what is said is written by the writer, which closes the connection once it is.
        while (link.running != 0) {
            if (!reading && link.session.finished())
                close_h2(link);
            co_await link.wake_reader.async_wait(use_values);
            link.wake_reader.expires_at(timer_type::time_point::max());
        }
    }

    /// Serves what the session surfaced and wakes the writer.
    void on_h2_progress(h2_link& link)
    {
        if (link.closed)
            return;
        if (stopping_.load(std::memory_order_relaxed))
            link.session.shut_down();
        http2::event e;
        while (link.session.next_event(e, link.storage)) {
            switch (e.what) {
            case http2::event::kind::request:
                ++link.running;
                coro_start(link.loop.io, serve_h2_stream(link, e));
                break;
            case http2::event::kind::cancelled:
            case http2::event::kind::wants_data: h2_wake_slot(link.streams, e); break;
            }
        }
        link.wake_writer.cancel();
    }

    /// Closes the connection and wakes everyone to find it closed.
    static void close_h2(h2_link& link)
    {
        if (std::exchange(link.closed, true))
            return;
        for (auto& [id, slot] : link.streams) {
            slot->cancelled = true;
            slot->timer.cancel();
        }
        link.conn.close();
        link.wake_writer.cancel();
        link.wake_reader.cancel();
    }

    /// Ends a coroutine of the link: the reader waits until all have.
    static void h2_ended(h2_link& link)
    {
        --link.running;
        link.wake_reader.cancel();
    }

    /// The connection's one writer: writes what the session frames, one buffer at a time, and sleeps when there is
    /// nothing; closes the connection once nothing is left to say.
    task<> write_h2(h2_link& link)
    {
        auto& conn = link.conn;
        while (!link.closed) {
            auto out = link.session.output();
            on_h2_progress(link);  // framing took events' pieces: their streams may make the next
            if (out.empty()) {
                if (link.session.finished()) {
                    close_h2(link);
                    break;
                }
                watch_h2_deadline(link, false);
                co_await link.wake_writer.async_wait(use_values);
                link.wake_writer.expires_at(timer_type::time_point::max());
                continue;
            }
            watch_h2_deadline(link, true);
            error_code ec;
            const auto n = conn.stream.write_some(asio::buffer(out), ec);
            link.session.consumed(n);
            if (ec == asio::error::would_block) {
                auto [wait_ec] = co_await conn.stream.async_wait(tcp::socket::wait_write, use_values);
                ec = wait_ec;
            }
            if (ec && ec != asio::error::would_block) {
                close_h2(link);
                break;
            }
        }
        h2_ended(link);
    }

    void watch_h2_deadline(h2_link& link, bool writing) const
    {
        const auto now = h2_deadline_state(link.session, link.streams.size(), writing);
        if (now == link.clock)
            return;
        link.clock = now;
        if (auto d = h2_deadline_after(now, link.conn.stream, context_.timeouts))
            link.conn.deadline.expires_after(*d);
        else
            link.conn.deadline.expires_never();
    }

    /// One stream's request: its stages as `serve` runs them, its answer handed to the session.
    task<> serve_h2_stream(h2_link& link, http2::event e)
    {
        h2_slot slot(link.loop, app_);
        auto& cycle = slot.state->cycle;
        std::swap(cycle.storage, link.storage);
        link.streams.emplace(e.stream, &slot);
        bool go_on = h2_begin(e, cycle);
        if (go_on) {
            if (cycle.plan.calls_downstream()) {
                go_on = co_await call_downstream(cycle, link.loop);
            } else {
                if (cycle.plan.delay_millis > 0) {
                    slot.timer.expires_after(std::chrono::milliseconds(cycle.plan.delay_millis));
                    co_await slot.timer.async_wait(use_values);
                }
                go_on = cycle.stage1_done();
            }
        }
        if (go_on && !slot.cancelled) {
            switch (cycle.plan.what) {
            case endpoints::work::respond: cycle.respond(); break;
            case endpoints::work::compute: cycle.respond(app_.compute(cycle.plan)); break;
            case endpoints::work::compute_offloaded: co_await compute_offloaded(cycle); break;
            case endpoints::work::stream: co_await stream_h2_events(link, slot, e.stream); break;
            case endpoints::work::database: co_await query_database(cycle, link.loop); break;
            }
        }
        h2_end_slot(link.session, e.stream, slot, go_on);
        link.streams.erase(e.stream);
        link.loop.spares.give(std::move(slot.state));
        link.wake_writer.cancel();
        h2_ended(link);
    }

    /// `/stream` over HTTP/2: event i+1 is made only once the session took event i into a frame.
    task<> stream_h2_events(h2_link& link, h2_slot& slot, std::int32_t stream)
    {
        auto& cycle = slot.state->cycle;
        const auto interval = cycle.plan.stream.interval_millis;
        bool more = h2_begin_events(link.session, stream, cycle, link.scratch);
        for (std::uint32_t i = 1; more; ++i) {
            link.wake_writer.cancel();
            while (!slot.wanted && !slot.cancelled) {
                slot.timer.expires_at(timer_type::time_point::max());
                co_await slot.timer.async_wait(use_values);
            }
            slot.wanted = false;
            if (!slot.cancelled && interval > 0) {
                slot.timer.expires_after(std::chrono::milliseconds(interval));
                co_await slot.timer.async_wait(use_values);
            }
            if (slot.cancelled)
                co_return;
            more = h2_push_event(link.session, stream, cycle, i, link.scratch);
        }
    }

    /// Serves one request: reads the rest of it, runs its stages and writes its answer, suspending at every wait.
    /// True when the connection stays open. The stages are written inline, as in Beast's `do_session`, but for the
    /// waits only some endpoints make: a nested coroutine costs a frame and a resumption whether or not it waits.
    task<bool> serve(watched_connection& conn, request_state& state, io_group& loop)
    {
        auto& cycle = state.cycle;
        auto got = read_arrived(conn, state, loop.spares, context_.timeouts, stopping_);
        if (got == arrival::incomplete)
            got = co_await read_rest(conn, state, loop);
        if (got == arrival::http2)
            co_return false;  // do_session serves it as HTTP/2
        // What the client asked before this request leaves before it is waited on, or before the client is left.
        if (got == arrival::closed || (got == arrival::planned && state.must_flush_before_work())) {
            bool flushed = true;
            if (!state.held.empty())
                flushed = co_await write_held(conn, state);
            if (got == arrival::closed)
                co_return false;
            if (!flushed)
                co_return cycle.finish(false);
        }
        if (got == arrival::planned) {
            // Stage 1: the downstream call or the delay.
            bool go_on = true;
            if (cycle.plan.calls_downstream()) {
                go_on = co_await call_downstream(cycle, loop);
            } else {
                if (cycle.plan.delay_millis > 0) {
                    timer_type timer(loop.io.get_executor(), std::chrono::milliseconds(cycle.plan.delay_millis));
                    co_await timer.async_wait(use_values);
                }
                go_on = cycle.stage1_done();
            }
            // Stages 2 and 3: the endpoint's work, which leaves its answer in the cycle's response.
            if (go_on) {
                switch (cycle.plan.what) {
                case endpoints::work::respond: cycle.respond(); break;
                case endpoints::work::compute:
                    // Deliberately on the loop thread, as the naive reactive handler: it holds the loop meanwhile.
                    cycle.respond(app_.compute(cycle.plan));
                    break;
                case endpoints::work::compute_offloaded: co_await compute_offloaded(cycle); break;
                case endpoints::work::stream: {
                    const bool streamed = co_await stream_events(conn, state, loop);
                    co_return cycle.finish(streamed);
                }
                case endpoints::work::database: co_await query_database(cycle, loop); break;
                }
            }
        }
        state.out.clear();
        cycle.append_head(state.out);
        if (state.hold_answer())
            co_return cycle.finish(true);
        std::size_t written = 0;
        auto sent = write_now(conn, state, outgoing::answer, written);
        if (sent == write_state::blocked)
            sent = co_await write_rest(conn, state, outgoing::answer, written);
        state.held.clear();
        co_return cycle.finish(sent == write_state::done);
    }

    /// Reads the rest of a request its first read left incomplete, writing the answers held for a pipeline before each
    /// wait. A coroutine of its own: its waits would grow the frame of every request, which most requests never make.
    task<arrival> read_rest(watched_connection& conn, request_state& state, io_group& loop)
    {
        auto got = arrival::incomplete;
        while (got == arrival::incomplete) {
            if (!state.held.empty()) {
                const bool flushed = co_await write_held(conn, state);
                if (!flushed)
                    co_return arrival::closed;
            }
            auto [ec] = co_await conn.stream.async_wait(tcp::socket::wait_read, use_values);
            got = ec ? reading_failed(state.cycle, ec)
                     : read_arrived(conn, state, loop.spares, context_.timeouts, stopping_);
        }
        co_return got;
    }

    /// Writes the answers held for a pipeline before a wait; false when the connection is gone.
    task<bool> write_held(watched_connection& conn, request_state& state)
    {
        std::size_t written = 0;
        auto sent = write_now(conn, state, outgoing::held, written);
        if (sent == write_state::blocked)
            sent = co_await write_rest(conn, state, outgoing::held, written);
        state.held.clear();
        co_return sent == write_state::done;
    }

    // The waits only some endpoints have are coroutines of their own: GCC gives every awaiter and local of a coroutine
    // its own place in the frame, so written inline in `serve` they would grow the frame every request allocates (by
    // 300 bytes, measured) for the requests that never make them.

    /// Stage 1's downstream call; false when it failed (the response then holds the 502 or 504).
    task<bool> call_downstream(endpoints::request_cycle& cycle, io_group& loop)
    {
        auto [outcome] = co_await loop.downstream->async_get(cycle.downstream_target(), use_values);
        co_return cycle.stage1_done(outcome);
    }

    /// `/cpu-offloaded`: a plain function object runs on a compute thread; only its completion resumes the coroutine.
    task<> compute_offloaded(endpoints::request_cycle& cycle)
    {
        auto compute = [this, &cycle] { return app_.compute(cycle.plan); };
        auto [computed] = co_await context_.offload.async_run(compute, use_values);
        cycle.respond(computed);
    }

    /// `/movies` on PostgreSQL: suspended on the libpq socket (and on a free connection) like any other wait.
    task<> query_database(endpoints::request_cycle& cycle, io_group& loop)
    {
        auto [answer] = co_await context_.database->async_run(loop.io.get_executor(), cycle.plan, use_values);
        cycle.respond(answer);
    }

    task<bool> stream_events(watched_connection& conn, request_state& state, io_group& loop)
    {
        auto& cycle = state.cycle;
        const auto& stream = cycle.plan.stream;
        timer_type timer(loop.io.get_executor());
        for (std::uint32_t i = 0; i < stream.count; ++i) {
            if (i != 0 && stream.interval_millis > 0) {
                timer.expires_after(std::chrono::milliseconds(stream.interval_millis));
                co_await timer.async_wait(use_values);
            } else if (i != 0) {
                // Through the loop, so a stream the socket keeps absorbing does not starve the loop's others.
                co_await asio::post(loop.io, asio::deferred);
            }
            // Demand-driven: event i+1 is produced only after event i was handed to the socket.
            state.out.clear();
            cycle.append_event(i, state.out);
            std::size_t written = 0;
            auto sent = write_now(conn, state, outgoing::event, written);
            if (sent == write_state::blocked)
                sent = co_await write_rest(conn, state, outgoing::event, written);
            if (sent != write_state::done)
                co_return false;
        }
        co_return true;
    }

    // A write's progress is a count of bytes, rebuilt into buffers where it is written: a frame that holds a
    // `buffers_suffix` across its waits grows by 64 bytes, and GCC gives it a place in every frame that writes.

    /// What a write sends from a request's state: the answers held for a pipeline, those followed by the answer just
    /// built (its head in `out`, then its body), or a stream's event (in `out`).
    enum class outgoing { held, answer, event };
    enum class write_state { done, blocked, failed };

    /// Writes what `what` names, past its first `written` bytes, without waiting and under the write deadline: done
    /// once all of it went out, blocked when the socket has no room for the rest (then `write_rest`), failed when the
    /// connection is gone.
    write_state write_now(watched_connection& conn, request_state& state, outgoing what, std::size_t& written) const
    {
        conn.deadline.expires_after(context_.timeouts.write);
        return write_more(conn, state, what, written);
    }

    /// Suspends until the socket has room and writes the rest, as often as it takes.
    static task<write_state> write_rest(watched_connection& conn, request_state& state, outgoing what,
                                        std::size_t& written)
    {
        auto progress = write_state::blocked;
        while (progress == write_state::blocked) {
            auto [ec] = co_await conn.stream.async_wait(tcp::socket::wait_write, use_values);
            progress = ec ? write_state::failed : write_more(conn, state, what, written);
        }
        co_return progress;
    }

    static write_state write_more(watched_connection& conn, request_state& state, outgoing what, std::size_t& written)
    {
        const auto held = asio::buffer(std::string_view(state.held));
        const auto out = asio::buffer(std::string_view(state.out));
        const auto body = asio::buffer(std::string_view(state.cycle.response.body));
        beast::buffers_suffix<std::array<asio::const_buffer, 3>> pending(
            what == outgoing::held     ? std::array{held, asio::const_buffer{}, asio::const_buffer{}}
            : what == outgoing::answer ? std::array{held, out, body}
                                       : std::array{out, asio::const_buffer{}, asio::const_buffer{}});
        pending.consume(written);
        while (beast::buffer_bytes(pending) != 0) {
            error_code ec;
            const auto n = conn.stream.write_some(pending, ec);
            pending.consume(n);
            written += n;
            if (ec == asio::error::would_block)
                return write_state::blocked;
            if (ec)
                return write_state::failed;
        }
        conn.deadline.expires_never();
        return write_state::done;
    }

    endpoints::app& app_;
};

}  // namespace

std::unique_ptr<server> make_coro_server(const server_context& context)
{
    return std::make_unique<coro_server>(context);
}

}  // namespace execbench::models
