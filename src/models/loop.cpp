#include "loop.hpp"

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"

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

/// One client connection (its socket, or TLS over it), served by callbacks on its loop.
///
/// Deadlines are checked by the loop's `deadline_sweep`, not a timer per operation: on the hot path setting one is
/// a store. Reads wait for readiness first and then read without blocking, and writes are tried at once; the
/// reactor is involved only when the socket has nothing to read or no room to write. That keeps the system calls per
/// request at one read and one write, as nginx does. Between requests it holds its socket, its deadline and one
/// pending wait: the request's buffers and parser come from the loop's spares when bytes arrive (docs/models.md).
class connection : public std::enable_shared_from_this<connection> {
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

    void do_wait_or_call()
    {
        if (cycle().plan.calls_downstream()) {
            loop_.downstream->async_get(cycle().downstream_target(),
                                        [self = shared_from_this()](http::call_outcome o) { self->on_stage1(o); });
        } else if (cycle().plan.delay_millis > 0) {
            timer_.expires_after(std::chrono::milliseconds(cycle().plan.delay_millis));
            timer_.async_wait([self = shared_from_this()](error_code) { self->on_stage1({}); });
        } else {
            on_stage1({});
        }
    }

    void on_stage1(const http::call_outcome& outcome)
    {
        if (!cycle().stage1_done(outcome))
            return do_write_response();
        do_work();
    }

    void do_work()
    {
        switch (cycle().plan.what) {
        case endpoints::work::respond: cycle().respond(); return do_write_response();
        case endpoints::work::compute:
            // Deliberately on the loop thread: this is the naive reactive handler whose cost the study measures.
            cycle().respond(app_.compute(cycle().plan));
            return do_write_response();
        case endpoints::work::compute_offloaded:
            context_.offload.async_run([self = shared_from_this()] { return self->app_.compute(self->cycle().plan); },
                                       asio::bind_executor(loop_.io, [self = shared_from_this()](endpoints::computation c) {
                                           self->cycle().respond(c);
                                           self->do_write_response();
                                       }));
            return;
        case endpoints::work::stream:
            event_ = 0;
            streaming_ = true;
            return do_stream_event();
        case endpoints::work::database:
            // A callback when the libpq socket has the answer; the loop serves others meanwhile.
            context_.database->async_run(loop_.io.get_executor(), cycle().plan,
                                         [self = shared_from_this()](const endpoints::database_answer& a) {
                                             self->cycle().respond(a);
                                             self->do_write_response();
                                         });
            return;
        }
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
