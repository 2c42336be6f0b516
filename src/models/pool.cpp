#include "pool.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/movie_database.hpp"
#include "execbench/models/offload_pool.hpp"

#include "downstream.hpp"
#include "request_state.hpp"
#include "server_support.hpp"
#include "transport.hpp"

#include "blocking.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include <poll.h>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using clock = std::chrono::steady_clock;

/// What poll() waits for so that `stream` can go on in direction `w` (TLS may need the other direction).
short poll_events(const transport& stream, asio::socket_base::wait_type w) noexcept
{
    return stream.wait_for(w) == asio::socket_base::wait_read ? POLLIN : POLLOUT;
}

/// A client connection; owned by the poller while its request arrives and by one worker while it is served. Between
/// requests it holds its stream (the socket, or TLS over it) and deadline timer: the request's buffers come from the poller's spares when bytes
/// arrive and go back once the answer is written (docs/models.md).
struct connection : std::enable_shared_from_this<connection> {
    connection(socket_type s, const tls::server_context* tls, asio::io_context& poller, endpoints::app& app)
        : stream(std::move(s), tls, app.counters()), timer(poller), scope(app.counters())
    {
    }
    endpoints::request_cycle& cycle() noexcept { return state->cycle; }

    transport stream;
    asio::steady_timer timer;
    clock::time_point deadline;
    endpoints::connection_scope scope;
    std::unique_ptr<request_state> state;  // only while a request is read or served
};

class pool_server final : public server {
public:
    explicit pool_server(const server_context& context) : context_(context), app_(context.app), queue_(context.queue) {}

    ~pool_server() override { shutdown(clock::now()); }

    void listen() override { listener_.emplace(poller_io_, context_.host, context_.port, context_.backlog); }

    void start() override
    {
        // The downstream calls' I/O runs on the poller; a worker blocks on the answer.
        downstream_ = make_downstream_client({poller_io_.get_executor(), false, context_.downstream,
                                              resolve_downstream(context_.downstream), context_.timeouts,
                                              context_.downstream_client, app_.counters().downstream()});
        listener_->start({&poller_io_}, [this](socket_type socket, std::size_t) {
            admit(std::make_shared<connection>(std::move(socket), context_.tls, poller_io_, app_));
        });
        poller_ = run_in_thread(poller_io_);
        for (unsigned i = 0; i < context_.threads; ++i)
            workers_.emplace_back([this] { work(); });
    }

    [[nodiscard]] std::uint16_t port() const noexcept override { return listener_->port(); }

    bool shutdown(clock::time_point deadline) override
    {
        if (workers_.empty())
            return true;
        stopping_ = true;
        listener_->stop();
        bool drained = wait_for_drain(app_.counters(), deadline);
        if (!drained) {
            // The deadline bounds shutdown: blocked delays, downstream and database calls and writes end now.
            abort_.raise();
            downstream_->cancel();
            if (context_.database != nullptr)
                context_.database->cancel();
        }
        queue_.close();
        for (auto& worker : workers_)
            worker.join();
        workers_.clear();
        poller_io_.stop();
        poller_.join();
        return drained;
    }

private:
    /// A new connection: over TLS its handshake goes to a worker first, as Tomcat's NIO connector hands the handshake
    /// to a worker, so the poller never does the crypto and the pool's threads share a handshake storm; a
    /// connection the full queue has no room for is closed (no answer can be said before the handshake).
    void admit(std::shared_ptr<connection> c)
    {
        if (!c->stream.needs_handshake())
            return read_request(std::move(c));
        if (!queue_.try_push(c))
            close(*c);
    }

    /// Reads the next request on the poller without blocking, as Tomcat's NIO connector does: a worker is taken only
    /// once the whole request (head and body) is buffered, so a slow or idle client costs no worker. Waiting for the
    /// first byte is idleness; once it arrives the header clock runs for the rest of the request.
    void read_request(std::shared_ptr<connection> c)
    {
        if (!c->state || !c->state->parser) {
            // A request begins. Idle, the connection holds nothing but its socket until the request's first byte.
            if (c->state && c->state->buffer.size() == 0)
                spares_.give(std::move(c->state));
            else if (c->state)
                c->state->parser.emplace(c->cycle().storage);  // a pipelined request is already buffered
            c->deadline = clock::now() + (c->state ? context_.timeouts.header : c->stream.first_byte_timeout(context_.timeouts));
        }
        if (c->state && parse(*c))
            return;
        if (c->state && !c->state->held.empty())
            return write_held(std::move(c));  // before waiting for the rest of the pipeline
        c->timer.expires_at(c->deadline);
        c->timer.async_wait([c](error_code timer_ec) {
            if (!timer_ec)
                c->stream.cancel(timer_ec);
        });
        c->stream.async_wait(tcp::socket::wait_read, [this, c](error_code wait_ec) { on_readable(wait_ec, c); });
    }

    /// Parses what `c` has buffered; true when that settled the request (queued for a worker, or answered and
    /// closed), false when more bytes are needed.
    bool parse(connection& c)
    {
        auto& state = *c.state;
        error_code ec;
        if (state.parse_buffered(ec)) {
            state.parser.reset();
            if (state.buffer.size() == 0)
                spares_.return_buffer(state.buffer);  // a request in flight holds no read buffer
            if (!queue_.try_push(c.shared_from_this()))
                reject_overloaded(c);
            return true;
        }
        if (!ec)
            return false;
        if (c.cycle().reject(ec))
            answer_now(c);
        close(c);
        return true;
    }

    void on_readable(error_code ec, std::shared_ptr<connection> c)
    {
        c->timer.cancel();
        if (ec || stopping_)
            return close(*c);  // deadline passed or the server is stopping: nothing to answer
        if (!c->state) {
            c->state = spares_.take(app_);
            c->state->parser.emplace(c->cycle().storage);
        }
        auto& buffer = c->state->buffer;
        if (buffer.capacity() == 0)
            spares_.lend_buffer(buffer);
        const bool first_bytes = buffer.size() == 0 && !c->state->parser->got_some();
        auto n = c->stream.read_some(buffer.prepare(read_chunk), ec);
        if (ec == asio::error::would_block)
            return read_request(std::move(c));
        if (ec)
            return close(*c);  // the client went away
        buffer.commit(n);
        if (first_bytes)
            c->deadline = clock::now() + context_.timeouts.header;
        read_request(std::move(c));
    }

    /// Writes a pipeline's held answers on the poller without blocking it, what the socket takes now and the rest
    /// when it has room, under the write deadline; then waits for the rest of the pipeline.
    void write_held(std::shared_ptr<connection> c)
    {
        auto& held = c->state->held;
        error_code ec;
        held.erase(0, c->stream.write_some(asio::buffer(held), ec));
        if (ec && ec != asio::error::would_block)
            return close(*c);
        if (held.empty())
            return read_request(std::move(c));
        c->timer.expires_after(context_.timeouts.write);
        c->timer.async_wait([c](error_code timer_ec) {
            if (!timer_ec)
                c->stream.cancel(timer_ec);
        });
        c->stream.async_wait(tcp::socket::wait_write, [this, c](error_code wait_ec) {
            c->timer.cancel();
            if (wait_ec)
                return close(*c);
            write_held(c);
        });
    }

    void reject_overloaded(connection& c)
    {
        // Read what else is there so closing does not reset the connection before the client sees the answer.
        error_code ec;
        char discard[16 * 1024];
        c.stream.read_some(asio::buffer(discard), ec);
        c.cycle().reject(http::failure::overloaded, "all workers busy and the queue is full");
        answer_now(c);
        close(c);
    }

    /// Writes a short error answer from the poller as far as the socket takes it at once; the poller never blocks.
    void answer_now(connection& c)
    {
        c.state->out.clear();
        c.cycle().append_head(c.state->out);
        error_code ec;
        const std::array buffers{asio::buffer(c.state->held), asio::buffer(c.state->out),
                                 asio::buffer(c.cycle().response.body)};
        auto n = c.stream.write_some(buffers, ec);
        c.cycle().finish(!ec && n == asio::buffer_size(buffers));
    }

    void close(connection& c)
    {
        c.stream.close();
    }

    void work()
    {
        while (auto c = queue_.pop()) {
            if (c->stream.needs_handshake() ? handshake(*c) : serve(*c))
                asio::post(poller_io_, [this, c = std::move(c)]() mutable { read_request(std::move(c)); });
            else
                close(*c);
        }
    }

    /// The TLS handshake of a new connection, blocking this worker until it is done, the header deadline passes (a
    /// handshake that stalls is closed as a slow head is) or the server stops (it has no request in flight to
    /// drain); true when done.
    bool handshake(connection& c)
    {
        const auto deadline = clock::now() + context_.timeouts.header;
        error_code ec;
        while (!c.stream.handshake(ec)) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            if (ec != asio::error::would_block || left.count() <= 0 || stopping_)
                return false;
            // In slices, so a stop is seen within one: the abort signal is raised only when requests fail to drain.
            abort_.wait(c.stream.native_handle(), poll_events(c.stream, tcp::socket::wait_read),
                        std::min(left, handshake_slice));
        }
        return true;
    }

    /// Serves the request buffered on `c`, blocking this worker throughout; true when the connection stays open.
    bool serve(connection& c)
    {
        std::optional<bool> streamed;
        if (c.cycle().begin(stopping_)) {
            if (c.state->must_flush_before_work() && !write(c, {asio::buffer(c.state->held)}))
                return c.cycle().finish(false);
            const bool called = wait_or_call(c);
            // The shutdown deadline cut the delay short or cancelled the call: neither its answer nor a 502 would be
            // true, so the connection closes unanswered, as under fiber and loop, whose io_context stops.
            if (abort_.raised())
                return c.cycle().finish(false);
            if (called)
                streamed = do_work(c);
        }
        return c.cycle().finish(streamed ? *streamed : write_response(c));
    }

    /// Stage 1: the downstream call or the delay, blocking this worker either way; false when the call failed.
    bool wait_or_call(connection& c)
    {
        if (c.cycle().plan.calls_downstream())
            return c.cycle().stage1_done(downstream_->get(c.cycle().downstream_target()));
        if (c.cycle().plan.delay_millis > 0)
            abort_.wait(-1, 0, std::chrono::milliseconds(c.cycle().plan.delay_millis));
        return c.cycle().stage1_done();
    }

    /// Stages 2 and 3. A stream writes itself and returns whether that succeeded; other endpoints leave their
    /// answer in the cycle's response and return nothing.
    std::optional<bool> do_work(connection& c)
    {
        auto& plan = c.cycle().plan;
        switch (plan.what) {
        case endpoints::work::respond: c.cycle().respond(); break;
        case endpoints::work::compute: c.cycle().respond(app_.compute(plan)); break;
        case endpoints::work::compute_offloaded:
            // The worker blocks on the future while a compute thread does the work.
            c.cycle().respond(context_.offload.async_run([&] { return app_.compute(plan); }, asio::use_future).get());
            break;
        case endpoints::work::stream: return stream_events(c);
        case endpoints::work::database:
            // The worker blocks on a pooled connection, as Spring MVC blocks in JDBC.
            c.cycle().respond(context_.database->run(plan));
            break;
        }
        return std::nullopt;
    }

    bool stream_events(connection& c)
    {
        const auto& stream = c.cycle().plan.stream;
        for (std::uint32_t i = 0; i < stream.count; ++i) {
            if (i != 0 && stream.interval_millis > 0 &&
                !abort_.wait(-1, 0, std::chrono::milliseconds(stream.interval_millis)))
                return false;
            // Demand-driven: event i+1 is produced only after event i was handed to the socket.
            c.state->out.clear();
            c.cycle().append_event(i, c.state->out);
            if (!write(c, {asio::buffer(c.state->out)}))
                return false;
        }
        return true;
    }

    bool write_response(connection& c)
    {
        c.state->out.clear();
        c.cycle().append_head(c.state->out);
        if (c.state->hold_answer())
            return true;
        return write(c, {asio::buffer(c.state->held), asio::buffer(c.state->out), asio::buffer(c.cycle().response.body)});
    }

    /// Writes `buffers` in one gathered write, blocking until done, the write timeout or the abort. What was held
    /// for a pipeline was among them, so it is no longer held.
    bool write(connection& c, std::array<asio::const_buffer, 3> buffers)
    {
        const auto deadline = clock::now() + context_.timeouts.write;
        beast::buffers_suffix pending(buffers);
        while (beast::buffer_bytes(pending) != 0) {
            error_code ec;
            pending.consume(c.stream.write_some(pending, ec));
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            if (ec == asio::error::would_block &&
                (left.count() <= 0 || !abort_.wait(c.stream.native_handle(), poll_events(c.stream, tcp::socket::wait_write), left)))
                return false;
            if (ec && ec != asio::error::would_block)
                return false;
        }
        c.state->held.clear();
        return true;
    }

    static constexpr std::size_t read_chunk = 4096;
    static constexpr std::chrono::milliseconds handshake_slice{100};

    const server_context& context_;
    endpoints::app& app_;
    detail::abort_signal abort_;
    request_spares spares_{false};  // the poller's alone; before poller_io_, whose connections free their states
    asio::io_context poller_io_{1};
    std::optional<listener> listener_;
    std::unique_ptr<downstream_client> downstream_;
    detail::work_queue<std::shared_ptr<connection>> queue_;
    std::thread poller_;
    std::vector<std::thread> workers_;
    std::atomic<bool> stopping_{false};
};

}  // namespace

std::unique_ptr<server> make_pool_server(const server_context& context)
{
    return std::make_unique<pool_server>(context);
}

}  // namespace execbench::models
