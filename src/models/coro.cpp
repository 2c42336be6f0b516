#include "coro.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"

#include "io_server.hpp"
#include "pg_async_run.hpp"
#include "request_state.hpp"
#include "watched_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using clock = std::chrono::steady_clock;

// The concrete executor, as for sockets and timers: an awaitable on `any_io_executor` pays for type erasure on every
// resumption.
using executor_type = asio::io_context::executor_type;
/// A coroutine of this model: an Asio awaitable resumed through its io_context.
template <class T = void>
using task = asio::awaitable<T, executor_type>;
// Every wait completes with its results as values, the error code first, not as an exception: `auto [ec] = co_await
// ...`. `deferred` rather than `use_awaitable`: Asio then starts the operation straight from the awaiting frame,
// where `use_awaitable` allocates a coroutine frame for the initiation as well, held for as long as the wait lasts
// (128 bytes an idle connection, and a frame allocation on every wait).
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
            asio::co_spawn(loop.io.get_executor(), do_session(std::move(socket), loop), asio::detached);
        });
    }

private:
    /// A connection's life: wait for a request's first byte, serve it, again. Between requests its frame holds the
    /// socket, its deadline and no request state; a pipelined request already buffered is served without waiting,
    /// after one turn through the loop so a long pipeline cannot starve the loop's other connections.
    task<> do_session(socket_type socket, io_group& loop)
    {
        watched_connection conn(std::move(socket), loop.deadlines, app_.counters());
        std::unique_ptr<request_state> state;
        for (;;) {
            if (state && state->buffer.size() != 0) {
                conn.deadline.expires_after(context_.timeouts.header);
                co_await asio::post(loop.io, asio::deferred);
            } else {
                if (state)
                    loop.spares.give(std::move(state));
                // Waiting for the first byte is idleness; once it arrives the header clock runs.
                conn.deadline.expires_after(context_.timeouts.idle);
                auto [ec] = co_await conn.socket.async_wait(tcp::socket::wait_read, use_values);
                if (ec)
                    break;  // the wait failed (the server is stopping): nothing to answer
                state = loop.spares.take(app_);
            }
            state->parser.emplace(state->cycle.storage);
            const bool keep_open = co_await serve(conn, *state, loop);
            if (!keep_open)
                break;
        }
        conn.close();
    }

    /// Serves one request: reads the rest of it, runs its stages and writes its answer, suspending at every wait.
    /// True when the connection stays open. The stages are written inline, as in Beast's `do_session`, but for the
    /// waits only some endpoints make: a nested coroutine costs a frame and a resumption whether or not it waits.
    task<bool> serve(watched_connection& conn, request_state& state, io_group& loop)
    {
        auto& cycle = state.cycle;
        auto got = read_arrived(conn, state, loop.spares, context_.timeouts, stopping_);
        while (got == arrival::incomplete) {
            if (!state.held.empty() && !co_await write_held(conn, state))
                co_return false;
            auto [ec] = co_await conn.socket.async_wait(tcp::socket::wait_read, use_values);
            got = ec ? reading_failed(cycle, ec) : read_arrived(conn, state, loop.spares, context_.timeouts, stopping_);
        }
        if (got == arrival::closed) {
            if (!state.held.empty())
                co_await write_held(conn, state);  // what the client had asked before it left
            co_return false;
        }
        if (got == arrival::planned && state.must_flush_before_work() && !co_await write_held(conn, state))
            co_return cycle.finish(false);
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
                    const bool streamed = co_await stream_events(conn, cycle, state.out, loop);
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
        pending_buffers pending(std::array{asio::buffer(std::string_view(state.held)),
                                           asio::buffer(std::string_view(state.out)),
                                           asio::buffer(std::string_view(cycle.response.body))});
        auto sent = write_now(conn, pending);
        if (sent == write_state::blocked)
            sent = co_await write_rest(conn, pending);
        state.held.clear();
        co_return cycle.finish(sent == write_state::done);
    }

    /// Writes the answers held for a pipeline before a wait; false when the connection is gone.
    task<bool> write_held(watched_connection& conn, request_state& state)
    {
        pending_buffers pending(std::array{asio::buffer(std::string_view(state.held)), asio::const_buffer{},
                                           asio::const_buffer{}});
        auto sent = write_now(conn, pending);
        if (sent == write_state::blocked)
            sent = co_await write_rest(conn, pending);
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

    task<bool> stream_events(watched_connection& conn, endpoints::request_cycle& cycle, std::string& out,
                             io_group& loop)
    {
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
            out.clear();
            cycle.append_event(i, out);
            pending_buffers pending(std::array{asio::buffer(std::string_view(out)), asio::const_buffer{}, asio::const_buffer{}});
            auto sent = write_now(conn, pending);
            if (sent == write_state::blocked)
                sent = co_await write_rest(conn, pending);
            if (sent != write_state::done)
                co_return false;
        }
        co_return true;
    }

    /// Held answers, a response's head and its body, as much of them as is still to be written.
    using pending_buffers = beast::buffers_suffix<std::array<asio::const_buffer, 3>>;
    enum class write_state { done, blocked, failed };

    /// Writes `pending` without waiting, under the write deadline: done once all of it went out, blocked when the
    /// socket has no room for the rest (then `write_rest`), failed when the connection is gone.
    write_state write_now(watched_connection& conn, pending_buffers& pending) const
    {
        conn.deadline.expires_after(context_.timeouts.write);
        return write_more(conn, pending);
    }

    /// Suspends until the socket has room and writes the rest of `pending`, as often as it takes.
    static task<write_state> write_rest(watched_connection& conn, pending_buffers& pending)
    {
        auto state = write_state::blocked;
        while (state == write_state::blocked) {
            auto [ec] = co_await conn.socket.async_wait(tcp::socket::wait_write, use_values);
            state = ec ? write_state::failed : write_more(conn, pending);
        }
        co_return state;
    }

    static write_state write_more(watched_connection& conn, pending_buffers& pending)
    {
        while (beast::buffer_bytes(pending) != 0) {
            error_code ec;
            pending.consume(conn.socket.write_some(pending, ec));
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
