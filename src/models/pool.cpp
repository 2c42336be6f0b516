#include "pool.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/movie_database.hpp"
#include "execbench/models/offload_pool.hpp"

#include "downstream.hpp"
#include "h2_support.hpp"
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
#include <condition_variable>
#include <mutex>
#include <optional>
#include <unordered_map>
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
    connection(socket_type s, const tls::server_context* tls, asio::io_context& poller, endpoints::app& app,
               bool http2)
        : stream(std::move(s), tls, app.counters()), timer(poller), scope(app.counters()), protocol_told(!http2)
    {
    }
    endpoints::request_cycle& cycle() noexcept { return state->cycle; }

    transport stream;
    asio::steady_timer timer;
    clock::time_point deadline;
    endpoints::connection_scope scope;
    std::unique_ptr<request_state> state;  // only while a request is read or served
    bool protocol_told;  // its first bytes said which protocol it speaks (or HTTP/2 is off)
};

struct h2_stream;

/// An HTTP/2 connection, on the poller: it reads and writes without blocking, as the poller reads HTTP/1.1 requests,
/// and hands each stream's request to a worker as an `h2_stream`. A worker blocks on the request's waits, then hands
/// its answer back through the poller's queue (`asio::post`), where the session frames it (docs/http2.md).
struct h2_link : std::enable_shared_from_this<h2_link> {
    h2_link(std::shared_ptr<connection> c, const http2::limits& limits, endpoints::app& app)
        : conn(std::move(c)), session(limits), scope(session, app.counters())
    {
    }
    std::shared_ptr<connection> conn;
    http2::server_session session;
    h2_connection_scope scope;
    std::unordered_map<std::int32_t, std::shared_ptr<h2_stream>> streams;  // handed to workers, not yet answered
    http::request_storage storage;                                        // where the next request arrives
    std::string scratch;                                                  // a /stream event being made
    h2_deadline clock = h2_deadline::none;
    bool reading = true;
    bool writing = false;  // a wait for room to write is pending
    bool closed = false;
};

/// One stream's request, served by a worker that blocks on its waits. For `/stream` the worker waits, between
/// events, for the poller to say the session took the last one (`wanted`), so an event is made only when the
/// previous was taken.
struct h2_stream {
    h2_stream(std::shared_ptr<h2_link> l, const http2::event& e, std::unique_ptr<request_state> s)
        : link(std::move(l)), event(e), state(std::move(s))
    {
    }
    std::shared_ptr<h2_link> link;
    http2::event event;
    std::unique_ptr<request_state> state;  // the poller's spares: taken and given back on the poller
    std::mutex mutex;
    std::condition_variable changed;
    bool wanted = false;     // the session took the last event (under mutex)
    bool cancelled = false;  // the client reset the stream or the connection closed (under mutex)
};

/// What the workers take from the queue: an HTTP/1.1 connection with a request buffered (or a TLS handshake to do),
/// or an HTTP/2 stream's request.
struct pool_job {
    std::shared_ptr<connection> conn;
    std::shared_ptr<h2_stream> stream;
    explicit operator bool() const noexcept { return conn || stream; }
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
            admit(std::make_shared<connection>(std::move(socket), context_.tls, poller_io_, app_, context_.http2));
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
        if (!queue_.try_push({c, nullptr}))
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
            if (!queue_.try_push({c.shared_from_this(), nullptr}))
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
        // One branch per connection, at its first bytes ("PR" waits for more before the parser sees them).
        if (!c->protocol_told) {
            const auto protocol = c->stream.protocol(bytes_of(buffer));
            c->protocol_told = protocol != http2::preface_match::undecided;
            if (protocol == http2::preface_match::http2)
                return start_h2(std::move(c));
        }
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

    // HTTP/2 on the poller: reading and writing without blocking, each stream's request queued for a worker.

    /// Serves a connection whose first bytes, in its request state's buffer, say it speaks HTTP/2.
    void start_h2(std::shared_ptr<connection> c)
    {
        const std::string first(bytes_of(c->state->buffer));
        c->state->buffer.consume(c->state->buffer.size());
        c->state->parser.reset();
        spares_.give(std::move(c->state));
        auto link = std::make_shared<h2_link>(std::move(c), context_.h2_limits, app_);
        link->reading = link->session.receive(first);
        on_h2_progress(link);
        wait_h2_bytes(link);
    }

    void wait_h2_bytes(const std::shared_ptr<h2_link>& link)
    {
        // On the poller, which alone touches the connection: no strand.
        h2_wait_bytes(
            link, link->conn->stream.get_executor(), [this](const std::shared_ptr<h2_link>& l) { on_h2_progress(l); },
            [this](h2_link& l) { close_h2(l); });
    }

    /// Hands what the session surfaced to the workers and to the streams waiting, then writes what it framed.
    void on_h2_progress(const std::shared_ptr<h2_link>& link)
    {
        auto& l = *link;
        if (l.closed)
            return;
        if (stopping_)
            l.session.shut_down();
        do {
            serve_h2_events(link);
            write_h2(link);
        } while (l.session.has_events() && !l.closed);  // framing took events: their streams may go on
    }

    void serve_h2_events(const std::shared_ptr<h2_link>& link)
    {
        auto& l = *link;
        http2::event e;
        while (l.session.next_event(e, l.storage)) {
            if (e.what == http2::event::kind::request) {
                auto stream = std::make_shared<h2_stream>(link, e, spares_.take(app_));
                auto& cycle = stream->state->cycle;
                std::swap(cycle.storage, l.storage);
                if (!queue_.try_push({nullptr, stream})) {
                    cycle.reject(http::failure::overloaded, "all workers busy and the queue is full");
                    h2_answer(l.session, e.stream, cycle);
                    spares_.give(std::move(stream->state));
                    continue;
                }
                l.streams.emplace(e.stream, std::move(stream));
                continue;
            }
            auto it = l.streams.find(e.stream);
            if (it == l.streams.end())
                continue;
            {
                std::lock_guard lock(it->second->mutex);
                (e.what == http2::event::kind::cancelled ? it->second->cancelled : it->second->wanted) = true;
            }
            it->second->changed.notify_one();
            if (e.what == http2::event::kind::cancelled)
                l.streams.erase(it);  // its worker sees it cancelled; its state comes back with its last hand-back
        }
    }

    /// Writes what the session frames as far as the socket takes it, then waits for room; closes the connection
    /// once nothing is left to say.
    void write_h2(const std::shared_ptr<h2_link>& link)
    {
        auto& l = *link;
        if (l.writing || l.closed)
            return;
        for (auto out = l.session.output(); !out.empty(); out = l.session.output()) {
            error_code ec;
            l.session.consumed(l.conn->stream.write_some(asio::buffer(out), ec));
            if (ec == asio::error::would_block) {
                l.writing = true;
                watch_h2_deadline(link);
                l.conn->stream.async_wait(tcp::socket::wait_write, [this, link](error_code wait_ec) {
                    link->writing = false;
                    if (wait_ec)
                        return close_h2(*link);
                    on_h2_progress(link);
                });
                return;
            }
            if (ec)
                return close_h2(l);
        }
        if (l.session.finished())
            return close_h2(l);
        watch_h2_deadline(link);
    }

    /// Runs the connection's clock on its timer, restarted only when the clock changes.
    void watch_h2_deadline(const std::shared_ptr<h2_link>& link)
    {
        auto& l = *link;
        const auto now = h2_deadline_state(l.session, l.streams.size(), l.writing);
        if (now == l.clock)
            return;
        l.clock = now;
        l.conn->timer.cancel();
        auto d = h2_deadline_after(now, l.conn->stream, context_.timeouts);
        if (!d)
            return;
        l.conn->timer.expires_after(*d);
        l.conn->timer.async_wait([this, link, now](error_code ec) {
            if (!ec && link->clock == now)
                close_h2(*link);
        });
    }

    /// Closes the connection; the workers serving its streams find them cancelled.
    void close_h2(h2_link& l)
    {
        if (std::exchange(l.closed, true))
            return;
        for (auto& [id, stream] : l.streams) {
            {
                std::lock_guard lock(stream->mutex);
                stream->cancelled = true;
            }
            stream->changed.notify_one();
        }
        l.streams.clear();
        l.conn->timer.cancel();
        close(*l.conn);
    }

    /// What a worker hands back to the poller for its stream.
    enum class handed { answer, event, abandoned };

    /// On the poller: the worker serving `stream` handed back its answer (in its cycle's response), its next event
    /// (`index`), or nothing (it stopped: the stream was cancelled or the server is past its shutdown deadline).
    void on_h2_handed_back(const std::shared_ptr<h2_stream>& stream, handed what, std::uint32_t index)
    {
        auto& l = *stream->link;
        auto& cycle = stream->state->cycle;
        const auto id = stream->event.stream;
        bool done = true;
        if (l.closed || what == handed::abandoned || l.streams.find(id) == l.streams.end())
            cycle.finish(false);
        else if (what == handed::answer)
            h2_answer(l.session, id, cycle);
        else
            done = !(index == 0 ? h2_begin_events(l.session, id, cycle, l.scratch)
                                : h2_push_event(l.session, id, cycle, index, l.scratch));
        if (done) {
            if (auto it = l.streams.find(id); it != l.streams.end() && it->second == stream)
                l.streams.erase(it);
            spares_.give(std::move(stream->state));
        }
        on_h2_progress(stream->link);
    }

    /// A worker serves one stream's request, blocking on its waits as `serve` does, and hands the answer back.
    void serve_h2_stream(const std::shared_ptr<h2_stream>& stream)
    {
        auto& cycle = stream->state->cycle;
        const bool go_on = h2_begin(stream->event, cycle) && wait_or_h2_call(cycle);
        if (abort_.raised())
            return hand_back(stream, handed::abandoned);
        if (go_on && cycle.plan.what == endpoints::work::stream)
            return stream_h2_events(stream);
        if (go_on)
            do_work_h2(cycle);
        hand_back(stream, handed::answer);
    }

    bool wait_or_h2_call(endpoints::request_cycle& cycle)
    {
        if (cycle.plan.calls_downstream())
            return cycle.stage1_done(downstream_->get(cycle.downstream_target()));
        if (cycle.plan.delay_millis > 0)
            abort_.wait(-1, 0, std::chrono::milliseconds(cycle.plan.delay_millis));
        return cycle.stage1_done();
    }

    /// Stages 2 and 3 of a stream's request other than /stream: the answer is left in the response.
    void do_work_h2(endpoints::request_cycle& cycle)
    {
        auto& plan = cycle.plan;
        switch (plan.what) {
        case endpoints::work::respond: cycle.respond(); break;
        case endpoints::work::compute: cycle.respond(app_.compute(plan)); break;
        case endpoints::work::compute_offloaded:
            cycle.respond(context_.offload.async_run([&] { return app_.compute(plan); }, asio::use_future).get());
            break;
        case endpoints::work::stream: break;
        case endpoints::work::database: cycle.respond(context_.database->run(plan)); break;
        }
    }

    /// `/stream`: the worker paces the events and waits for each to be taken; the poller makes and frames them.
    void stream_h2_events(const std::shared_ptr<h2_stream>& stream)
    {
        const auto plan = stream->state->cycle.plan.stream;
        for (std::uint32_t i = 0; i < plan.count; ++i) {
            if (i != 0) {
                std::unique_lock lock(stream->mutex);
                // In slices, so a shutdown deadline is seen within one.
                while (!stream->wanted && !stream->cancelled && !abort_.raised())
                    stream->changed.wait_for(lock, handshake_slice);
                if (stream->cancelled || abort_.raised())
                    break;
                stream->wanted = false;
            }
            if (i != 0 && plan.interval_millis > 0 &&
                !abort_.wait(-1, 0, std::chrono::milliseconds(plan.interval_millis)))
                break;
            hand_back(stream, handed::event, i);
            if (i + 1 == plan.count)
                return;
        }
        hand_back(stream, handed::abandoned);
    }

    /// Posts what the worker has for its stream to the poller.
    void hand_back(const std::shared_ptr<h2_stream>& stream, handed what, std::uint32_t index = 0)
    {
        asio::post(poller_io_, [this, stream, what, index] { on_h2_handed_back(stream, what, index); });
    }

    void close(connection& c)
    {
        c.stream.close();
    }

    void work()
    {
        while (auto job = queue_.pop()) {
            if (job.stream) {
                serve_h2_stream(job.stream);
                continue;
            }
            auto& c = job.conn;
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
    detail::work_queue<pool_job> queue_;
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
