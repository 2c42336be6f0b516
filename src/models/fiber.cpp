#include "fiber.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"

#include "io_server.hpp"
#include "pg_async_run.hpp"
#include "request_state.hpp"
#include "stack_pool.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/spawn.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>
#include <optional>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using clock = std::chrono::steady_clock;
// The concrete executor, as for sockets and timers: a fiber resumed through `any_io_executor` pays for type erasure
// and a heap-allocated function object on every wait (about 300 instructions a request, measured with callgrind).
using yield_type = asio::basic_yield_context<asio::io_context::executor_type>;

/// A connection between requests: its socket and its deadline, which the deadline sweep watches, and no fiber.
struct fiber_connection {
    fiber_connection(socket_type s, deadline_sweep& sweep, endpoints::app& app)
        : socket(std::move(s)), deadlines(sweep), scope(app.counters())
    {
        deadlines.watch(deadline, socket.native_handle());
    }
    ~fiber_connection() { deadlines.forget(deadline); }
    fiber_connection(const fiber_connection&) = delete;
    fiber_connection& operator=(const fiber_connection&) = delete;

    socket_type socket;
    models::deadline deadline;
    deadline_sweep& deadlines;
    endpoints::connection_scope scope;
};

class fiber_server final : public io_server {
public:
    // One io_group run by every carrier: a fiber that becomes ready resumes on whichever carrier is free.
    explicit fiber_server(const server_context& context)
        : io_server(context, 1, context.threads),
          app_(context.app),
          carriers_(*groups_.front()),
          stacks_(std::size_t{context.fiber_stack_kb} * 1024, spare_stacks)
    {
    }

    ~fiber_server() override
    {
        shutdown(clock::now());
        groups_.clear();  // fibers destroyed with their io_context give their stacks back to stacks_ first
    }

    void start() override
    {
        start_serving([this](socket_type socket, io_group&) {
            wait_for_request(std::make_shared<fiber_connection>(std::move(socket), carriers_.deadlines, app_));
        });
    }

private:
    /// Waits for the next request's first byte without a fiber: an idle connection holds no stack (docs/models.md,
    /// "Memory per connection"). Once it is readable, a fiber on a pooled stack serves it.
    void wait_for_request(std::shared_ptr<fiber_connection> conn)
    {
        conn->deadline.expires_after(context_.timeouts.idle);
        conn->socket.async_wait(tcp::socket::wait_read, [this, conn](error_code ec) mutable {
            if (ec)
                return close(*conn);  // the wait failed (the server is stopping): nothing to answer
            spawn_fiber([this, conn = std::move(conn)](const yield_type& yield) {
                if (serve(*conn, yield))
                    wait_for_request(conn);
                else
                    close(*conn);
            });
        });
    }

    template <class Function>
    void spawn_fiber(Function&& function)
    {
        // No strand: a fiber has one operation in flight at a time and spawn starts it only once the fiber is
        // suspended, so its handlers run in sequence whichever carrier runs them (docs/models.md).
        asio::spawn(carriers_.io.get_executor(), std::allocator_arg, pooled_stack(stacks_),
                    std::forward<Function>(function), asio::detached);
    }

    /// Serves the requests that have arrived, as sequential code parking the fiber at every wait; returns, ending the
    /// fiber, once nothing more is buffered. True when the connection stays open for the next request.
    bool serve(fiber_connection& conn, const yield_type& yield)
    {
        auto state = carriers_.spares.take(app_);
        auto& cycle = state->cycle;
        auto& out = state->out;
        timer_type timer(yield.get_executor());
        error_code ec;
        do {
            if (!read_request(conn, *state, yield, ec)) {
                if (cycle.reject(ec))
                    cycle.finish(write_response(conn, cycle, out, yield));
                return false;
            }
            std::optional<bool> streamed;
            if (cycle.begin(stopping_) && wait_or_call(cycle, timer, yield))
                streamed = do_work(conn, cycle, out, timer, yield);
            if (!cycle.finish(streamed ? *streamed : write_response(conn, cycle, out, yield)))
                return false;
        } while (state->buffer.size() != 0);  // a pipelined request is already here
        carriers_.spares.give(std::move(state));
        return true;
    }

    void close(fiber_connection& conn)
    {
        conn.deadlines.forget(conn.deadline);  // before the descriptor is closed and its number reused
        error_code ec;
        conn.socket.shutdown(tcp::socket::shutdown_send, ec);
        conn.socket.close(ec);
    }

    /// Reads one request into the state's cycle, parking the fiber while the socket has nothing to read. Waiting
    /// for the first byte is idleness; once it arrives the header clock runs for the rest of the request.
    bool read_request(fiber_connection& conn, request_state& state, const yield_type& yield, error_code& ec)
    {
        auto& buffer = state.buffer;
        auto& parser = state.parser.emplace(state.cycle.storage);
        bool idle = buffer.size() == 0;
        conn.deadline.expires_after(idle ? context_.timeouts.idle : context_.timeouts.header);
        while (!http::parse_buffered(parser, buffer, ec)) {
            if (ec)
                return false;
            if (buffer.capacity() == 0)
                carriers_.spares.lend_buffer(buffer);
            // Read first: the fiber starts when the socket is readable.
            auto n = conn.socket.read_some(buffer.prepare(read_chunk), ec);
            if (ec == asio::error::would_block) {
                conn.socket.async_wait(tcp::socket::wait_read, yield[ec]);
                if (ec)
                    return false;
                continue;
            }
            if (ec)
                return false;
            buffer.commit(n);
            if (idle) {
                idle = false;
                conn.deadline.expires_after(context_.timeouts.header);
            }
        }
        conn.deadline.expires_never();
        if (buffer.size() == 0)
            carriers_.spares.return_buffer(buffer);  // a request in flight holds no read buffer
        return true;
    }

    /// Stage 1: the downstream call or the delay, parking the fiber either way; false when the call failed.
    bool wait_or_call(endpoints::request_cycle& cycle, timer_type& timer, const yield_type& yield)
    {
        if (cycle.plan.calls_downstream())
            return cycle.stage1_done(carriers_.downstream->async_get(cycle.downstream_target(), yield));
        if (cycle.plan.delay_millis > 0) {
            error_code ec;
            timer.expires_after(std::chrono::milliseconds(cycle.plan.delay_millis));
            timer.async_wait(yield[ec]);
        }
        return cycle.stage1_done();
    }

    /// Stages 2 and 3: the endpoint's work. A stream writes itself and returns whether that succeeded; other
    /// endpoints leave their answer in the cycle's response and return nothing.
    std::optional<bool> do_work(fiber_connection& conn, endpoints::request_cycle& cycle, std::string& out,
                                timer_type& timer, const yield_type& yield)
    {
        switch (cycle.plan.what) {
        case endpoints::work::respond: cycle.respond(); break;
        case endpoints::work::compute:
            // On the carrier: a fiber that computes holds its carrier, as a virtual thread pins its carrier.
            cycle.respond(app_.compute(cycle.plan));
            break;
        case endpoints::work::compute_offloaded:
            cycle.respond(context_.offload.async_run([&] { return app_.compute(cycle.plan); }, yield));
            break;
        case endpoints::work::stream: return stream_events(conn, cycle, out, timer, yield);
        case endpoints::work::database:
            // Parks on the libpq socket (and on a free connection) like any other wait of the fiber.
            cycle.respond(context_.database->async_run(carriers_.io.get_executor(), cycle.plan, yield));
            break;
        }
        return std::nullopt;
    }

    bool stream_events(fiber_connection& conn, endpoints::request_cycle& cycle, std::string& out, timer_type& timer,
                       const yield_type& yield)
    {
        const auto& stream = cycle.plan.stream;
        for (std::uint32_t i = 0; i < stream.count; ++i) {
            if (i != 0 && stream.interval_millis > 0) {
                error_code ec;
                timer.expires_after(std::chrono::milliseconds(stream.interval_millis));
                timer.async_wait(yield[ec]);
            }
            // Demand-driven: event i+1 is produced only after event i was handed to the socket.
            out.clear();
            cycle.append_event(i, out);
            if (!write(conn, out, {}, yield))
                return false;
        }
        return true;
    }

    bool write_response(fiber_connection& conn, const endpoints::request_cycle& cycle, std::string& out,
                        const yield_type& yield)
    {
        out.clear();
        cycle.append_head(out);
        return write(conn, out, cycle.response.body, yield);
    }

    /// Writes `head` and `body` in one gathered write, trying at once and parking the fiber only while the socket
    /// has no room.
    bool write(fiber_connection& conn, std::string_view head, std::string_view body, const yield_type& yield) const
    {
        conn.deadline.expires_after(context_.timeouts.write);
        std::array buffers{asio::buffer(head), asio::buffer(body)};
        beast::buffers_suffix pending(buffers);
        while (beast::buffer_bytes(pending) != 0) {
            error_code ec;
            pending.consume(conn.socket.write_some(pending, ec));
            if (ec == asio::error::would_block)
                conn.socket.async_wait(tcp::socket::wait_write, yield[ec]);
            if (ec)
                return false;
        }
        conn.deadline.expires_never();
        return true;
    }

    static constexpr std::size_t read_chunk = 4096;
    // Enough for the fibers of a busy server at once (a fiber lives only while a request is served): about 3 MB
    // resident at ~12 KiB touched each.
    static constexpr std::size_t spare_stacks = 256;

    endpoints::app& app_;
    io_group& carriers_;
    stack_pool stacks_;
};

}  // namespace

std::unique_ptr<server> make_fiber_server(const server_context& context)
{
    return std::make_unique<fiber_server>(context);
}

}  // namespace execbench::models
