#include "loop.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"

#include "h2_support.hpp"
#include "io_server.hpp"
#include "pg_async_run.hpp"
#include "request_state.hpp"
#include "transport.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>
#include <atomic>
#include <unordered_map>
#include <utility>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using clock = std::chrono::steady_clock;

/// One event loop: an io_context run by one thread, with its own connections, deadline sweep and downstream client.
using event_loop = io_group;

/// A request's stages by callback, as an HTTP/1.1 connection and an HTTP/2 stream both run them: the wait or the
/// downstream call, then the work. `Derived` supplies where they run (`loop()`, `context()`, `cycle()`, `timer()`),
/// `cancelled()` (a callback that finds it true goes no further) and the two ends: `on_answered()`, the response is in
/// the cycle, and `do_stream()`, the plan is `/stream`.
template <class Derived>
class request_stages {
protected:
    void do_wait_or_call()
    {
        auto& cycle = derived().cycle();
        if (cycle.plan.calls_downstream()) {
            derived().loop().downstream->async_get(
                cycle.downstream_target(),
                [self = derived().shared_from_this()](http::call_outcome o) { self->on_stage1(o); });
        } else if (cycle.plan.delay_millis > 0) {
            derived().timer().expires_after(std::chrono::milliseconds(cycle.plan.delay_millis));
            derived().timer().async_wait([self = derived().shared_from_this()](error_code) { self->on_stage1({}); });
        } else {
            on_stage1({});
        }
    }

    void on_stage1(const http::call_outcome& outcome)
    {
        if (derived().cancelled())
            return;
        if (!derived().cycle().stage1_done(outcome))
            return derived().on_answered();
        do_work();
    }

    void do_work()
    {
        auto& cycle = derived().cycle();
        auto& context = derived().context();
        auto& loop = derived().loop();
        switch (cycle.plan.what) {
        case endpoints::work::respond: cycle.respond(); return derived().on_answered();
        case endpoints::work::compute:
            // Deliberately on the loop thread: this is the naive reactive handler whose cost the study measures.
            cycle.respond(context.app.compute(cycle.plan));
            return derived().on_answered();
        case endpoints::work::compute_offloaded:
            context.offload.async_run(
                [self = derived().shared_from_this()] { return self->context().app.compute(self->cycle().plan); },
                asio::bind_executor(loop.io, [self = derived().shared_from_this()](endpoints::computation c) {
                    if (self->cancelled())
                        return;
                    self->cycle().respond(c);
                    self->on_answered();
                }));
            return;
        case endpoints::work::stream: return derived().do_stream();
        case endpoints::work::database:
            // A callback when the libpq socket has the answer; the loop serves others meanwhile.
            context.database->async_run(loop.io.get_executor(), cycle.plan,
                                        [self = derived().shared_from_this()](const endpoints::database_answer& a) {
                                            if (self->cancelled())
                                                return;
                                            self->cycle().respond(a);
                                            self->on_answered();
                                        });
            return;
        }
    }

private:
    Derived& derived() noexcept { return static_cast<Derived&>(*this); }
};

class h2_exchange;

/// An HTTP/2 connection, served by callbacks on its loop: one reader, one write in flight, and each stream's request
/// an `h2_exchange` whose waits (a delay, a downstream call, the database, offloaded compute) are callbacks too.
/// Bytes read go to the session at once; what it frames is written as one buffer at a time (docs/http2.md).
class h2_connection : public std::enable_shared_from_this<h2_connection> {
public:
    h2_connection(transport stream, event_loop& loop, const server_context& context, const std::atomic<bool>& stopping)
        : stream_(std::move(stream)),
          loop_(loop),
          context_(context),
          app_(context.app),
          stopping_(stopping),
          scope_(app_.counters()),
          session_(context.h2_limits),
          h2_scope_(session_, app_.counters())
    {
        loop_.deadlines.watch(deadline_, stream_.native_handle());
    }

    ~h2_connection() { loop_.deadlines.forget(deadline_); }

    /// Serves the connection whose first bytes, already read, are `first`.
    void start(std::string_view first)
    {
        reading_ = session_.receive(first);
        on_progress();
        if (reading_)
            do_read();
    }

    /// The exchange on `stream` answered (its response is in `cycle`): hand it to the session and write.
    void on_answered(std::int32_t stream, endpoints::request_cycle& cycle)
    {
        h2_answer(session_, stream, cycle);
        exchanges_.erase(stream);
        on_progress();
    }

    /// The exchange on `stream` has its next `/stream` event ready: give it to the session and write.
    bool on_stream_event(std::int32_t stream, endpoints::request_cycle& cycle, std::uint32_t index)
    {
        const bool more = index == 0 ? h2_begin_events(session_, stream, cycle, scratch_)
                                     : h2_push_event(session_, stream, cycle, index, scratch_);
        if (!more)
            exchanges_.erase(stream);
        on_progress();
        return more;
    }

    [[nodiscard]] event_loop& loop() noexcept { return loop_; }
    [[nodiscard]] const server_context& context() const noexcept { return context_; }

private:
    void do_read()
    {
        stream_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) { self->on_readable(ec); });
    }

    void on_readable(error_code ec)
    {
        if (ec || closed_)
            return close();
        const auto got = h2_read_arrived(stream_, session_);
        if (got == h2_read::failed)
            return close();  // the client went away
        reading_ = got == h2_read::again;
        on_progress();
        if (reading_ && !closed_)
            do_read();
    }

    /// Serves what the session surfaced, then writes what it framed; closes once nothing is left to say.
    void on_progress()
    {
        // An exchange answering at once calls back in here while the events are served: the loop below then
        // writes its answer with the others, many to a write.
        if (closed_ || serving_)
            return;
        if (stopping_.load(std::memory_order_relaxed))
            session_.shut_down();
        serving_ = true;
        http2::event e;
        while (session_.next_event(e, storage_))
            on_event(e);
        serving_ = false;
        if (!writing_)
            do_write();
    }

    void on_event(const http2::event& e);

    void do_write()
    {
        if (session_.output().empty()) {
            if (session_.finished())
                return close();
            return watch_deadline();
        }
        writing_ = true;
        watch_deadline();
        continue_write();
    }

    void continue_write()
    {
        for (auto out = session_.output(); !out.empty(); out = session_.output()) {
            error_code ec;
            const auto n = stream_.write_some(asio::buffer(out), ec);
            session_.consumed(n);
            if (ec == asio::error::would_block) {
                stream_.async_wait(tcp::socket::wait_write, [self = shared_from_this()](error_code wait_ec) {
                    if (wait_ec || self->closed_)
                        return self->close();
                    self->continue_write();
                });
                return;
            }
            if (ec)
                return close();
        }
        writing_ = false;
        on_progress();  // framing made room: a stream whose piece was taken makes its next one
    }

    void watch_deadline()
    {
        const auto now = h2_deadline_state(session_, exchanges_.size(), writing_);
        if (now == deadline_state_)
            return;
        deadline_state_ = now;
        if (auto d = h2_deadline_after(now, stream_, context_.timeouts))
            deadline_.expires_after(*d);
        else
            deadline_.expires_never();
    }

    void close();

    transport stream_;
    event_loop& loop_;
    const server_context& context_;
    endpoints::app& app_;
    const std::atomic<bool>& stopping_;
    endpoints::connection_scope scope_;
    deadline deadline_;
    http2::server_session session_;
    h2_connection_scope h2_scope_;
    std::unordered_map<std::int32_t, std::shared_ptr<h2_exchange>> exchanges_;
    http::request_storage storage_;  // where the next request's head and body arrive, swapped into its exchange
    std::string scratch_;            // a /stream event being made
    h2_deadline deadline_state_ = h2_deadline::none;
    bool reading_ = true;
    bool writing_ = false;
    bool serving_ = false;
    bool closed_ = false;
};

/// One stream's request on an `h2_connection`: its stages by callback, as the HTTP/1.1 connection runs them, its
/// answer handed back to the connection. Abandoned (its callbacks find it cancelled) when the client resets it.
class h2_exchange : public std::enable_shared_from_this<h2_exchange>, private request_stages<h2_exchange> {
public:
    h2_exchange(std::shared_ptr<h2_connection> conn, std::int32_t stream)
        : conn_(std::move(conn)),
          stream_(stream),
          state_(conn_->loop().spares.take(conn_->context().app)),
          timer_(conn_->loop().io.get_executor())
    {
    }

    ~h2_exchange()
    {
        if (state_)
            conn_->loop().spares.give(std::move(state_));
    }

    endpoints::request_cycle& cycle() noexcept { return state_->cycle; }

    /// Serves the request the connection put into `cycle().storage`.
    void start(const http2::event& e)
    {
        if (!h2_begin(e, cycle()))
            return on_answered();
        do_wait_or_call();
    }

    /// The client reset the stream: whatever is pending finds this and stops.
    void cancel()
    {
        cancelled_ = true;
        timer_.cancel();
        cycle().finish(false);
    }

    /// The previous `/stream` event was taken into a frame: make the next.
    void do_next_event()
    {
        if (cancelled_)
            return;
        if (cycle().plan.stream.interval_millis == 0) {
            // Through the loop, so a stream the socket keeps absorbing neither recurses nor starves the others.
            asio::post(conn_->loop().io, [self = shared_from_this()] { self->on_event_due(); });
            return;
        }
        timer_.expires_after(std::chrono::milliseconds(cycle().plan.stream.interval_millis));
        timer_.async_wait([self = shared_from_this()](error_code) { self->on_event_due(); });
    }

private:
    friend request_stages<h2_exchange>;

    [[nodiscard]] event_loop& loop() noexcept { return conn_->loop(); }
    [[nodiscard]] const server_context& context() const noexcept { return conn_->context(); }
    [[nodiscard]] timer_type& timer() noexcept { return timer_; }
    [[nodiscard]] bool cancelled() const noexcept { return cancelled_; }

    void on_answered() { conn_->on_answered(stream_, cycle()); }

    void do_stream() { on_event_due(); }

    void on_event_due()
    {
        if (cancelled_)
            return;
        conn_->on_stream_event(stream_, cycle(), event_++);
    }

    std::shared_ptr<h2_connection> conn_;
    std::int32_t stream_;
    std::unique_ptr<request_state> state_;
    timer_type timer_;
    std::uint32_t event_ = 0;
    bool cancelled_ = false;
};

void h2_connection::on_event(const http2::event& e)
{
    switch (e.what) {
    case http2::event::kind::request: {
        auto exchange = std::make_shared<h2_exchange>(shared_from_this(), e.stream);
        std::swap(exchange->cycle().storage, storage_);
        exchanges_.emplace(e.stream, exchange);
        exchange->start(e);
        return;
    }
    case http2::event::kind::cancelled:
        if (auto it = exchanges_.find(e.stream); it != exchanges_.end()) {
            it->second->cancel();
            exchanges_.erase(it);
        }
        return;
    case http2::event::kind::wants_data:
        if (auto it = exchanges_.find(e.stream); it != exchanges_.end())
            it->second->do_next_event();
        return;
    }
}

void h2_connection::close()
{
    if (std::exchange(closed_, true))
        return;
    // The exchanges hold the connection: they are let go here, their pending callbacks finding them cancelled.
    for (auto& [id, exchange] : exchanges_)
        exchange->cancel();
    exchanges_.clear();
    loop_.deadlines.forget(deadline_);  // before the descriptor is closed and its number reused
    stream_.close();
}

/// One client connection (its socket, or TLS over it), served by callbacks on its loop.
///
/// Deadlines are checked by the loop's `deadline_sweep`, not a timer per operation: on the hot path setting one is
/// a store. Reads wait for readiness first and then read without blocking, and writes are tried at once; the
/// reactor is involved only when the socket has nothing to read or no room to write. That keeps the system calls per
/// request at one read and one write, as nginx does. Between requests it holds its socket, its deadline and one
/// pending wait: the request's buffers and parser come from the loop's spares when bytes arrive (docs/models.md).
class connection : public std::enable_shared_from_this<connection>, private request_stages<connection> {
public:
    connection(socket_type socket, event_loop& loop, const server_context& context, const std::atomic<bool>& stopping)
        : stream_(std::move(socket), context.tls, context.app.counters()),
          timer_(loop.io.get_executor()),
          loop_(loop),
          context_(context),
          app_(context.app),
          stopping_(stopping),
          scope_(app_.counters())
    {
        loop_.deadlines.watch(deadline_, stream_.native_handle());
    }

    ~connection() { loop_.deadlines.forget(deadline_); }

    void start() { do_read(); }

private:
    void do_read()
    {
        if (state_ && state_->buffer.size() != 0) {
            // A pipelined request is already buffered; go through the loop so a long pipeline cannot recurse.
            state_->parser.emplace(cycle().storage);
            deadline_.expires_after(context_.timeouts.header);
            asio::post(stream_.get_executor(), [self = shared_from_this()] { self->parse_buffered(); });
            return;
        }
        // Waiting for the first byte is idleness; once it arrives the header clock runs for the rest of the request.
        // An idle connection holds no request state: it goes back to the loop's spares until bytes arrive.
        if (state_)
            loop_.spares.give(std::move(state_));
        deadline_.expires_after(stream_.first_byte_timeout(context_.timeouts));
        do_wait_readable();
    }

    void do_wait_readable()
    {
        stream_.async_wait(tcp::socket::wait_read,
                           [self = shared_from_this()](error_code ec) { self->on_readable(ec); });
    }

    void on_readable(error_code ec)
    {
        if (ec)
            return close();  // the wait failed (the server is stopping): nothing to answer
        if (!state_) {
            state_ = loop_.spares.take(app_);
            state_->parser.emplace(cycle().storage);
        }
        if (state_->buffer.capacity() == 0)
            loop_.spares.lend_buffer(state_->buffer);
        const bool first_bytes = state_->buffer.size() == 0 && !state_->parser->got_some();
        auto n = stream_.read_some(state_->buffer.prepare(read_chunk), ec);
        if (ec == asio::error::would_block)
            return do_wait_readable();
        if (ec)
            return close();  // the client went away (eof before or during a request)
        state_->buffer.commit(n);
        if (first_bytes)
            deadline_.expires_after(context_.timeouts.header);
        // One branch per connection, at its first bytes: a connection that speaks HTTP/2 goes to its own class.
        if (first_request_ && context_.http2) {
            const auto protocol = stream_.protocol(bytes_of(state_->buffer));
            if (protocol == http2::preface_match::undecided)
                return do_wait_readable();
            first_request_ = false;
            if (protocol == http2::preface_match::http2)
                return hand_to_http2();
        }
        first_request_ = false;
        parse_buffered();
    }

    void parse_buffered()
    {
        error_code ec;
        if (!state_->parse_buffered(ec)) {
            if (!ec)
                return state_->held.empty() ? do_wait_readable() : do_write_held(&connection::do_wait_readable);
            return cycle().reject(ec) ? do_write_response() : close();
        }
        deadline_.expires_never();
        if (state_->buffer.size() == 0)
            loop_.spares.return_buffer(state_->buffer);  // a request in flight holds no read buffer
        if (!cycle().begin(stopping_.load(std::memory_order_relaxed)))
            return do_write_response();
        if (state_->must_flush_before_work())
            return do_write_held(&connection::do_wait_or_call);
        do_wait_or_call();
    }

    friend request_stages<connection>;

    [[nodiscard]] event_loop& loop() noexcept { return loop_; }
    [[nodiscard]] const server_context& context() const noexcept { return context_; }
    [[nodiscard]] timer_type& timer() noexcept { return timer_; }
    // An HTTP/1.1 request always runs to its answer: a client gone meanwhile is found when the answer is written.
    static constexpr bool cancelled() noexcept { return false; }

    void on_answered() { do_write_response(); }

    void do_stream()
    {
        event_ = 0;
        streaming_ = true;
        do_stream_event();
    }

    void do_write_response()
    {
        state_->out.clear();
        cycle().append_head(state_->out);
        if (state_->hold_answer())
            return on_written();
        do_write(cycle().response.body);
    }

    /// Writes the answers held for a pipeline before a wait, then goes on with `next`.
    void do_write_held(void (connection::*next)())
    {
        after_held_ = next;
        pending_ = beast::buffers_suffix(
            std::array{asio::buffer(std::string_view(state_->held)), asio::const_buffer{}, asio::const_buffer{}});
        deadline_.expires_after(context_.timeouts.write);
        continue_write();
    }

    void do_stream_event()
    {
        // Demand-driven: the next event is produced only when the previous write has completed.
        state_->out.clear();
        cycle().append_event(event_++, state_->out);
        do_write({});
    }

    void on_written()
    {
        if (streaming_ && event_ < cycle().plan.stream.count)
            return do_next_event();
        streaming_ = false;
        if (!cycle().finish(true))
            return close();
        do_read();
    }

    void do_next_event()
    {
        if (cycle().plan.stream.interval_millis == 0) {
            // Through the loop, so a stream the socket keeps absorbing neither recurses nor starves the others.
            asio::post(stream_.get_executor(), [self = shared_from_this()] { self->do_stream_event(); });
            return;
        }
        timer_.expires_after(std::chrono::milliseconds(cycle().plan.stream.interval_millis));
        timer_.async_wait([self = shared_from_this()](error_code) { self->do_stream_event(); });
    }

    /// Writes the held answers, `state_->out` and then `body` in one gathered write, trying at once and waiting for
    /// room only when the socket is full; then goes on in `on_written`.
    void do_write(std::string_view body)
    {
        pending_ = beast::buffers_suffix(std::array{asio::buffer(std::string_view(state_->held)),
                                                    asio::buffer(std::string_view(state_->out)), asio::buffer(body)});
        deadline_.expires_after(context_.timeouts.write);
        continue_write();
    }

    void continue_write()
    {
        while (beast::buffer_bytes(pending_) != 0) {
            error_code ec;
            pending_.consume(stream_.write_some(pending_, ec));
            if (ec == asio::error::would_block) {
                stream_.async_wait(tcp::socket::wait_write, [self = shared_from_this()](error_code wait_ec) {
                    if (wait_ec)
                        return self->on_write_failed();
                    self->continue_write();
                });
                return;
            }
            if (ec)
                return on_write_failed();
        }
        deadline_.expires_never();
        state_->held.clear();
        if (auto next = std::exchange(after_held_, nullptr))
            return (this->*next)();
        on_written();
    }

    void on_write_failed()
    {
        // Held answers written before waiting for more of the pipeline belong to requests already finished.
        if (std::exchange(after_held_, nullptr) != &connection::do_wait_readable)
            cycle().finish(false);
        close();
    }

    void close()
    {
        loop_.deadlines.forget(deadline_);  // before the descriptor is closed and its number reused
        stream_.close();
    }

    void hand_to_http2()
    {
        loop_.deadlines.forget(deadline_);
        const std::string first(bytes_of(state_->buffer));
        state_->buffer.consume(state_->buffer.size());
        state_->parser.reset();
        loop_.spares.give(std::move(state_));
        std::make_shared<h2_connection>(std::move(stream_), loop_, context_, stopping_)->start(first);
    }

    endpoints::request_cycle& cycle() noexcept { return state_->cycle; }

    static constexpr std::size_t read_chunk = 4096;

    transport stream_;
    timer_type timer_;
    event_loop& loop_;
    const server_context& context_;
    endpoints::app& app_;
    const std::atomic<bool>& stopping_;
    endpoints::connection_scope scope_;
    deadline deadline_;
    std::unique_ptr<request_state> state_;  // only while a request is read or served
    beast::buffers_suffix<std::array<asio::const_buffer, 3>> pending_;  // held answers, head, body
    void (connection::*after_held_)() = nullptr;  // where a write of held answers alone goes on
    std::uint32_t event_ = 0;
    bool streaming_ = false;  // the write in progress is an event of /stream, not a whole response
    bool first_request_ = true;  // its first bytes will say whether the connection speaks HTTP/2
};

class loop_server final : public io_server {
public:
    // An io_group per loop, one thread each: a connection stays on the loop it was accepted to.
    explicit loop_server(const server_context& context) : io_server(context, context.threads, 1) {}

    ~loop_server() override { shutdown(clock::now()); }

    void start() override
    {
        start_serving([this](socket_type socket, io_group& loop) {
            std::make_shared<connection>(std::move(socket), loop, context_, stopping_)->start();
        });
    }
};

}  // namespace

std::unique_ptr<server> make_loop_server(const server_context& context)
{
    return std::make_unique<loop_server>(context);
}

}  // namespace execbench::models
