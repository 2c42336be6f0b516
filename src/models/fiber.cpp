#include "fiber.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"

#include "h2_support.hpp"
#include "io_server.hpp"
#include "pg_async_run.hpp"
#include "request_state.hpp"
#include "stack_pool.hpp"
#include "watched_connection.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/spawn.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>
#include <optional>
#include <unordered_map>

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
/// An HTTP/2 connection's fibers and callbacks run on its strand: the carriers share one io_context, and a session is
/// one thread's at a time.
using strand_type = asio::strand<asio::io_context::executor_type>;
/// The yield of a fiber on an HTTP/2 connection's strand.
using h2_yield_type = asio::basic_yield_context<strand_type>;

/// What the reading callbacks, the writer fiber and the streams' fibers of one HTTP/2 connection share.
struct h2_link {
    h2_link(std::shared_ptr<watched_connection> c, io_group& group, const server_context& context)
        : conn(std::move(c)),
          strand(asio::make_strand(group.io.get_executor())),
          session(context.h2_limits),
          scope(session, context.app.counters())
    {
    }
    std::shared_ptr<watched_connection> conn;
    strand_type strand;
    http2::server_session session;
    h2_connection_scope scope;
    std::unordered_map<std::int32_t, h2_slot*> streams;  // each owned by its stream's fiber
    http::request_storage storage;                        // where the next request arrives
    std::string scratch;                                  // a /stream event being made
    h2_deadline clock = h2_deadline::none;
    bool reading = true;
    bool writing = false;  // the writer fiber runs
    bool closed = false;
};

class fiber_server final : public io_server {
public:
    // One io_group run by every carrier: a fiber that becomes ready resumes on whichever carrier is free.
    explicit fiber_server(const server_context& context)
        : io_server(context, 1, context.threads),
          app_(context.app),
          carriers_(*groups_.front()),
          stacks_(std::size_t{context.fiber_stack_kb} * 1024)
    {
    }

    ~fiber_server() override
    {
        shutdown(clock::now());
        trim_timer_.reset();  // before the io_context it is bound to
        groups_.clear();      // fibers destroyed with their io_context give their stacks back to stacks_ first
    }

    void start() override
    {
        trim_timer_.emplace(carriers_.io.get_executor());
        trim_stacks();
        start_serving([this](socket_type socket, io_group&) {
            wait_for_request(
                std::make_shared<watched_connection>(std::move(socket), context_.tls, carriers_.deadlines, app_.counters(), context_.http2));
        });
    }

private:
    /// Waits for the next request's first byte without a fiber: an idle connection holds no stack (docs/models.md,
    /// "Memory per connection").
    void wait_for_request(std::shared_ptr<watched_connection> conn)
    {
        conn->deadline.expires_after(conn->stream.first_byte_timeout(context_.timeouts));
        wait_for_bytes(std::move(conn));
    }

    /// Waits, without a fiber, for bytes that start or carry on a request (or a TLS handshake), under the deadline set.
    void wait_for_bytes(std::shared_ptr<watched_connection> conn)
    {
        conn->stream.async_wait(tcp::socket::wait_read, [this, conn](error_code ec) mutable {
            if (ec)
                return conn->close();  // the wait failed (the server is stopping): nothing to answer
            start_request(std::move(conn), carriers_.spares.take(app_));
        });
    }

    /// Reads, parses and plans what has arrived on the carrier's own stack, then starts a fiber that serves it. The
    /// parser's frames are the deepest a request has (Beast's `parse_fields` alone is 4 KiB): kept off the fiber's
    /// stack, a fiber parked on a wait keeps one page of it resident, not two (docs/models.md).
    void start_request(std::shared_ptr<watched_connection> conn, std::unique_ptr<request_state> state)
    {
        state->parser.emplace(state->cycle.storage);
        auto got = read_arrived(*conn, *state, carriers_.spares, context_.timeouts, stopping_);
        if (got == arrival::closed && state->held.empty())
            return conn->close();  // no fiber needed
        if (got == arrival::http2)
            return start_h2(std::move(conn), std::move(state));
        if (got == arrival::incomplete && conn->stream.needs_handshake()) {
            // A TLS handshake goes on between flights without a fiber: its crypto runs on the carrier's stack, and a
            // connection that is still shaking hands holds no fiber stack (issue 55's handshake storm).
            carriers_.spares.give(std::move(state));
            return wait_for_bytes(std::move(conn));
        }
        spawn_fiber([this, conn = std::move(conn), state = std::move(state), got](const yield_type& yield) mutable {
            if (serve(*conn, *state, got, yield))
                next_request(std::move(conn), std::move(state));
            else if (conn->speaks_http2)
                start_h2(std::move(conn), std::move(state));  // its first bytes came while this fiber read
            else
                conn->close();
        });
    }

    // HTTP/2: reading waits without a fiber, as an idle HTTP/1.1 connection does; each stream's request is a fiber
    // that parks at its waits as `serve` does, and one writer fiber at a time writes what the session frames. All of
    // them run on the connection's strand.

    /// Serves a connection whose first bytes, in `state`'s buffer, say it speaks HTTP/2.
    void start_h2(std::shared_ptr<watched_connection> conn, std::unique_ptr<request_state> state)
    {
        std::string first(bytes_of(state->buffer));
        state->buffer.consume(state->buffer.size());
        carriers_.spares.give(std::move(state));
        auto link = std::make_shared<h2_link>(std::move(conn), carriers_, context_);
        asio::post(link->strand, [this, link, first = std::move(first)] {
            link->reading = link->session.receive(first);
            on_h2_progress(link);
            wait_h2_bytes(link);
        });
    }

    void wait_h2_bytes(const std::shared_ptr<h2_link>& link)
    {
        h2_wait_bytes(
            link, link->strand, [this](const std::shared_ptr<h2_link>& l) { on_h2_progress(l); }, close_h2);
    }

    /// Serves what the session surfaced, then starts the writer when there are frames to write, or closes the
    /// connection when nothing is left to say.
    void on_h2_progress(const std::shared_ptr<h2_link>& link)
    {
        auto& l = *link;
        if (l.closed)
            return;
        if (stopping_.load(std::memory_order_relaxed))
            l.session.shut_down();
        http2::event e;
        while (l.session.next_event(e, l.storage)) {
            switch (e.what) {
            case http2::event::kind::request:
                asio::spawn(l.strand, std::allocator_arg, pooled_stack(stacks_),
                            [this, link, e](const h2_yield_type& yield) { serve_h2_stream(link, e, yield); },
                            asio::detached);
                break;
            case http2::event::kind::cancelled:
            case http2::event::kind::wants_data: h2_wake_slot(l.streams, e); break;
            }
        }
        if (l.writing)
            return;
        if (!l.session.output().empty()) {
            l.writing = true;
            asio::spawn(l.strand, std::allocator_arg, pooled_stack(stacks_),
                        [this, link](const h2_yield_type& yield) { write_h2(link, yield); }, asio::detached);
        } else if (l.session.finished()) {
            close_h2(l);
        } else {
            watch_h2_deadline(l);
        }
    }

    /// The connection's one writer: writes what the session frames, one buffer at a time, parking while the socket
    /// has no room; ends when there is nothing to write.
    void write_h2(const std::shared_ptr<h2_link>& link, const h2_yield_type& yield)
    {
        auto& l = *link;
        watch_h2_deadline(l);
        for (auto out = l.session.output(); !out.empty() && !l.closed; out = l.session.output()) {
            error_code ec;
            l.session.consumed(l.conn->stream.write_some(asio::buffer(out), ec));
            if (ec == asio::error::would_block)
                l.conn->stream.async_wait(tcp::socket::wait_write, yield[ec]);
            if (ec && ec != asio::error::would_block)
                return close_h2(l);
        }
        l.writing = false;
        on_h2_progress(link);  // framing took events' pieces: their streams may make the next
    }

    void watch_h2_deadline(h2_link& l) const
    {
        const auto now = h2_deadline_state(l.session, l.streams.size(), l.writing);
        if (now == l.clock)
            return;
        l.clock = now;
        if (auto d = h2_deadline_after(now, l.conn->stream, context_.timeouts))
            l.conn->deadline.expires_after(*d);
        else
            l.conn->deadline.expires_never();
    }

    /// Closes the connection; the streams' fibers wake to find it closed.
    static void close_h2(h2_link& l)
    {
        if (std::exchange(l.closed, true))
            return;
        for (auto& [id, slot] : l.streams) {
            slot->cancelled = true;
            slot->timer.cancel();
        }
        l.conn->close();
    }

    /// One stream's request as sequential code: its stages as `serve` runs them, its answer handed to the session.
    void serve_h2_stream(const std::shared_ptr<h2_link>& link, http2::event e, const h2_yield_type& yield)
    {
        auto& l = *link;
        h2_slot slot(carriers_, app_);
        auto& cycle = slot.state->cycle;
        std::swap(cycle.storage, l.storage);
        l.streams.emplace(e.stream, &slot);
        const bool go_on = h2_begin(e, cycle) && wait_or_call(cycle, slot.timer, yield) && !slot.cancelled;
        if (go_on) {
            switch (cycle.plan.what) {
            case endpoints::work::respond: cycle.respond(); break;
            case endpoints::work::compute: cycle.respond(app_.compute(cycle.plan)); break;
            case endpoints::work::compute_offloaded:
                cycle.respond(context_.offload.async_run([&] { return app_.compute(cycle.plan); }, yield));
                break;
            case endpoints::work::stream: stream_h2_events(link, slot, e.stream, yield); break;
            case endpoints::work::database:
                cycle.respond(context_.database->async_run(carriers_.io.get_executor(), cycle.plan, yield));
                break;
            }
        }
        h2_end_slot(l.session, e.stream, slot, go_on);
        l.streams.erase(e.stream);
        carriers_.spares.give(std::move(slot.state));
        on_h2_progress(link);
    }

    /// `/stream` over HTTP/2: event i+1 is made only once the session took event i into a frame.
    void stream_h2_events(const std::shared_ptr<h2_link>& link, h2_slot& slot, std::int32_t stream,
                          const h2_yield_type& yield)
    {
        auto& l = *link;
        auto& cycle = slot.state->cycle;
        const auto interval = cycle.plan.stream.interval_millis;
        bool more = h2_begin_events(l.session, stream, cycle, l.scratch);
        for (std::uint32_t i = 1; more; ++i) {
            on_h2_progress(link);  // the writer frames the piece
            error_code ec;
            while (!slot.wanted && !slot.cancelled) {
                slot.timer.expires_at(timer_type::time_point::max());
                slot.timer.async_wait(yield[ec]);
            }
            slot.wanted = false;
            if (!slot.cancelled && interval > 0) {
                slot.timer.expires_after(std::chrono::milliseconds(interval));
                slot.timer.async_wait(yield[ec]);
            }
            if (slot.cancelled)
                return;
            more = h2_push_event(l.session, stream, cycle, i, l.scratch);
        }
    }

    /// After a response: a pipelined request already buffered is started through the carriers' queue (so it is
    /// parsed on a carrier's stack, and a long pipeline cannot recurse); otherwise the connection waits idle.
    void next_request(std::shared_ptr<watched_connection> conn, std::unique_ptr<request_state> state)
    {
        if (state->buffer.size() == 0) {
            carriers_.spares.give(std::move(state));
            return wait_for_request(std::move(conn));
        }
        conn->deadline.expires_after(context_.timeouts.header);
        asio::post(carriers_.io, [this, conn = std::move(conn), state = std::move(state)]() mutable {
            start_request(std::move(conn), std::move(state));
        });
    }

    /// Every `stack_pool::trim_period`, returns the spare stacks no fiber needed meanwhile.
    void trim_stacks()
    {
        trim_timer_->expires_after(stack_pool::trim_period);
        trim_timer_->async_wait([this](error_code ec) {
            if (ec)
                return;
            stacks_.trim();
            trim_stacks();
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

    /// Serves one request as sequential code parking the fiber at every wait, from where reading it on the carrier
    /// left off (`got`): the rest of a request that had not all arrived is read here. True when the connection stays
    /// open.
    bool serve(watched_connection& conn, request_state& state, arrival got, const yield_type& yield)
    {
        auto& cycle = state.cycle;
        while (got == arrival::incomplete) {
            if (!write_held(conn, state, yield))
                return false;
            error_code ec;
            conn.stream.async_wait(tcp::socket::wait_read, yield[ec]);
            got = ec ? reading_failed(cycle, ec)
                     : read_arrived(conn, state, carriers_.spares, context_.timeouts, stopping_);
        }
        if (got == arrival::http2)
            return false;  // served as HTTP/2 once this fiber ends
        if (got == arrival::closed) {
            write_held(conn, state, yield);  // what the client had asked before it left
            return false;
        }
        if (got == arrival::planned && state.must_flush_before_work() && !write_held(conn, state, yield))
            return cycle.finish(false);
        timer_type timer(yield.get_executor());
        std::optional<bool> streamed;
        if (got == arrival::planned && wait_or_call(cycle, timer, yield))
            streamed = do_work(conn, cycle, state.out, timer, yield);
        return cycle.finish(streamed ? *streamed : write_response(conn, state, yield));
    }

    /// Stage 1: the downstream call or the delay, parking the fiber either way; false when the call failed.
    template <class Yield>
    bool wait_or_call(endpoints::request_cycle& cycle, timer_type& timer, const Yield& yield)
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
    std::optional<bool> do_work(watched_connection& conn, endpoints::request_cycle& cycle, std::string& out,
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

    bool stream_events(watched_connection& conn, endpoints::request_cycle& cycle, std::string& out, timer_type& timer,
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
            if (!write(conn, {asio::buffer(out)}, yield))
                return false;
        }
        return true;
    }

    /// Writes the answer built in `state` after the answers held before it, or holds it too (`hold_answer`).
    bool write_response(watched_connection& conn, request_state& state, const yield_type& yield)
    {
        state.out.clear();
        state.cycle.append_head(state.out);
        if (state.hold_answer())
            return true;
        const bool written = write(conn,
                                   {asio::buffer(state.held), asio::buffer(state.out),
                                    asio::buffer(state.cycle.response.body)},
                                   yield);
        state.held.clear();
        return written;
    }

    /// Writes the answers held for a pipeline before a wait; false when the connection is gone.
    bool write_held(watched_connection& conn, request_state& state, const yield_type& yield)
    {
        if (state.held.empty())
            return true;
        const bool written = write(conn, {asio::buffer(state.held)}, yield);
        state.held.clear();
        return written;
    }

    /// Writes `buffers` in one gathered write, trying at once and parking the fiber only while the socket has no room.
    bool write(watched_connection& conn, std::array<asio::const_buffer, 3> buffers, const yield_type& yield) const
    {
        conn.deadline.expires_after(context_.timeouts.write);
        beast::buffers_suffix pending(buffers);
        while (beast::buffer_bytes(pending) != 0) {
            error_code ec;
            pending.consume(conn.stream.write_some(pending, ec));
            if (ec == asio::error::would_block)
                conn.stream.async_wait(tcp::socket::wait_write, yield[ec]);
            if (ec)
                return false;
        }
        conn.deadline.expires_never();
        return true;
    }

    endpoints::app& app_;
    io_group& carriers_;
    stack_pool stacks_;
    std::optional<timer_type> trim_timer_;
};

}  // namespace

std::unique_ptr<server> make_fiber_server(const server_context& context)
{
    return std::make_unique<fiber_server>(context);
}

}  // namespace execbench::models
