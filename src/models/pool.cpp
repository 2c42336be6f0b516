#include "execbench/models/pool.hpp"

#include "execbench/http/client.hpp"
#include "execbench/http/failure.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"
#include "execbench/models/server_support.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using clock = std::chrono::steady_clock;

/// Ends every blocking wait of the pool at once: an eventfd that poll() watches beside the socket. Raised when the
/// shutdown deadline passes, so workers blocked in a delay, a downstream call or a write return at once.
class abort_signal {
public:
    abort_signal() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
    {
        if (fd_ < 0)
            throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~abort_signal() { ::close(fd_); }
    abort_signal(const abort_signal&) = delete;
    abort_signal& operator=(const abort_signal&) = delete;

    /// Ends every wait, now and later (the eventfd stays readable).
    void raise() noexcept { ::eventfd_write(fd_, 1); }
    [[nodiscard]] int fd() const noexcept { return fd_; }

    /// Sleeps for `d` unless raised first; false when raised.
    bool sleep_for(std::chrono::milliseconds d) const noexcept
    {
        pollfd fd{fd_, POLLIN, 0};
        return ::poll(&fd, 1, static_cast<int>(d.count())) == 0;
    }

private:
    int fd_;
};

/// Blocking reads and writes with a deadline over a socket in non-blocking mode: try the call, and when it would
/// block, poll() for the remaining time. A SyncReadStream and SyncWriteStream, so Beast's sync read works on it.
class blocking_stream {
public:
    blocking_stream(tcp::socket& socket, const abort_signal& abort) : socket_(socket), abort_(abort) {}

    /// Every following call must finish by `deadline`.
    void expires_at(clock::time_point deadline) noexcept { deadline_ = deadline; }
    void expires_after(clock::duration d) noexcept { deadline_ = clock::now() + d; }

    using executor_type = tcp::socket::executor_type;
    executor_type get_executor() noexcept { return socket_.get_executor(); }

    template <class MutableBuffers>
    std::size_t read_some(const MutableBuffers& buffers, error_code& ec)
    {
        for (;;) {
            auto n = socket_.read_some(buffers, ec);
            if (ec != asio::error::would_block)
                return n;
            if (!wait(POLLIN, ec))
                return 0;
        }
    }

    template <class ConstBuffers>
    std::size_t write_some(const ConstBuffers& buffers, error_code& ec)
    {
        for (;;) {
            auto n = socket_.write_some(buffers, ec);
            if (ec != asio::error::would_block)
                return n;
            if (!wait(POLLOUT, ec))
                return 0;
        }
    }

    template <class MutableBuffers>
    std::size_t read_some(const MutableBuffers& buffers)
    {
        error_code ec;
        auto n = read_some(buffers, ec);
        if (ec)
            throw boost::system::system_error(ec);
        return n;
    }

    template <class ConstBuffers>
    std::size_t write_some(const ConstBuffers& buffers)
    {
        error_code ec;
        auto n = write_some(buffers, ec);
        if (ec)
            throw boost::system::system_error(ec);
        return n;
    }

    /// Blocks until the socket is ready for `events` or the deadline passes (then `ec` is timed_out).
    bool wait(short events, error_code& ec)
    {
        for (;;) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now()).count();
            if (left <= 0) {
                ec = asio::error::timed_out;
                return false;
            }
            pollfd fds[2] = {{socket_.native_handle(), events, 0}, {abort_.fd(), POLLIN, 0}};
            int r = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1'000'000)));
            if (r > 0 && fds[1].revents != 0) {
                ec = asio::error::operation_aborted;
                return false;
            }
            if (r > 0) {
                ec.clear();
                return true;
            }
            if (r < 0 && errno != EINTR) {
                ec.assign(errno, boost::system::system_category());
                return false;
            }
        }
    }

private:
    tcp::socket& socket_;
    const abort_signal& abort_;
    clock::time_point deadline_ = clock::now();
};

/// A keep-alive downstream client for blocking workers: a locked stack of idle sockets.
class downstream_client {
public:
    downstream_client(const http::url& server, tcp::resolver::results_type endpoints, const http::timeouts& timeouts,
                      const abort_signal& abort)
        : server_(server), endpoints_(std::move(endpoints)), timeouts_(timeouts), abort_(abort)
    {
    }

    /// Sends GET `target` and blocks the calling worker until the answer is in.
    http::call_outcome get(std::string_view target)
    {
        std::string request;
        http::write_get_request(server_, target, request);
        for (;;) {
            error_code ec;
            auto socket = idle_.take();
            const bool reused = socket != nullptr;
            if (!reused) {
                socket = connect(ec);
                if (ec)
                    return http::call_outcome::from_error(ec);
            }
            blocking_stream stream(*socket, abort_);
            stream.expires_after(timeouts_.downstream_response);
            asio::write(stream, asio::buffer(request), ec);
            beast::flat_buffer buffer;
            http::downstream_parser parser;
            http::configure(parser);
            if (!ec)
                beast::http::read(stream, buffer, parser, ec);
            if (ec) {
                // A pooled connection the server already closed fails at once: retry on a fresh one.
                if (reused && http::is_stale_connection_error(ec))
                    continue;
                return http::call_outcome::from_error(ec);
            }
            if (parser.keep_alive() && buffer.size() == 0)
                idle_.give_back(std::move(socket));
            return http::judge_response(parser);
        }
    }

private:
    std::unique_ptr<tcp::socket> connect(error_code& ec)
    {
        for (const auto& entry : endpoints_) {
            auto socket = std::make_unique<tcp::socket>(io_);
            socket->open(entry.endpoint().protocol(), ec);
            if (ec)
                continue;
            socket->non_blocking(true, ec);
            socket->connect(entry.endpoint(), ec);
            if (ec == asio::error::in_progress || ec == asio::error::would_block) {
                blocking_stream stream(*socket, abort_);
                stream.expires_after(timeouts_.downstream_connect);
                if (stream.wait(POLLOUT, ec)) {
                    int error = 0;
                    socklen_t length = sizeof error;
                    ::getsockopt(socket->native_handle(), SOL_SOCKET, SO_ERROR, &error, &length);
                    ec.assign(error, boost::system::system_category());
                }
            }
            if (!ec) {
                socket->set_option(tcp::no_delay(true), ec);
                return socket;
            }
        }
        return nullptr;
    }

    asio::io_context io_;  // never run: only owns the sockets, whose calls are all synchronous
    const http::url& server_;
    tcp::resolver::results_type endpoints_;
    const http::timeouts& timeouts_;
    const abort_signal& abort_;
    idle_connections<tcp::socket> idle_;
};

/// A client connection; owned by the poller while its request arrives and by one worker while it is served.
struct connection {
    connection(tcp::socket s, asio::io_context& poller) : socket(std::move(s)), timer(poller) {}
    tcp::socket socket;
    asio::steady_timer timer;
    clock::time_point deadline;
    beast::flat_buffer buffer;
    http::request_storage storage;
    std::optional<http::request_parser> parser;
    endpoints::plan plan;
    http::response response;
    std::string out;
    std::string target;
};

/// The bounded queue between the poller and the workers.
class work_queue {
public:
    explicit work_queue(std::size_t capacity) : capacity_(capacity) {}

    /// Queues a connection with a request waiting; false when the queue is full.
    bool try_push(std::shared_ptr<connection> c)
    {
        {
            std::lock_guard lock(mutex_);
            if (items_.size() >= capacity_)
                return false;
            items_.push_back(std::move(c));
        }
        ready_.notify_one();
        return true;
    }

    /// Blocks until a connection is available or the queue is closed (then returns null).
    std::shared_ptr<connection> pop()
    {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closed_ || !items_.empty(); });
        if (items_.empty())
            return nullptr;
        auto c = std::move(items_.front());
        items_.pop_front();
        return c;
    }

    /// Wakes every worker; pop() returns null from now on once the queue is empty.
    void close()
    {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

private:
    std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::shared_ptr<connection>> items_;
    bool closed_ = false;
};

class pool_server final : public server {
public:
    explicit pool_server(const server_context& context)
        : context_(context), app_(context.app), acceptor_(poller_io_), queue_(context.queue)
    {
    }

    ~pool_server() override { shutdown(clock::now()); }

    void listen() override
    {
        open_acceptor(acceptor_, context_.host, context_.port);
        port_ = acceptor_.local_endpoint().port();
    }

    void start() override
    {
        downstream_.emplace(context_.downstream, resolve_downstream(context_.downstream), context_.timeouts, abort_);
        accept_timer_.emplace(poller_io_);
        do_accept();
        poller_ = std::thread([this] {
            auto guard = asio::make_work_guard(poller_io_);
            poller_io_.run();
        });
        for (unsigned i = 0; i < context_.threads; ++i)
            workers_.emplace_back([this] { work(); });
    }

    [[nodiscard]] std::uint16_t port() const noexcept override { return port_; }

    bool shutdown(clock::time_point deadline) override
    {
        if (workers_.empty())
            return true;
        stopping_ = true;
        asio::post(poller_io_, [this] {
            error_code ec;
            acceptor_.close(ec);
            accept_timer_->cancel();
        });
        bool drained = wait_for_drain(app_.counters(), deadline);
        if (!drained)
            abort_.raise();  // the deadline bounds shutdown: blocked delays, calls and writes end now
        queue_.close();
        for (auto& worker : workers_)
            worker.join();
        workers_.clear();
        poller_io_.stop();
        poller_.join();
        return drained;
    }

private:
    void do_accept()
    {
        acceptor_.async_accept([this](error_code ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
    }

    void on_accept(error_code ec, tcp::socket socket)
    {
        if (stopping_ || ec == asio::error::operation_aborted)
            return;
        if (ec) {
            // Out of descriptors (or another transient error): back off instead of spinning on accept.
            accept_timer_->expires_after(accept_backoff(ec));
            accept_timer_->async_wait([this](error_code wait_ec) {
                if (!wait_ec && !stopping_)
                    do_accept();
            });
            return;
        }
        socket.set_option(tcp::no_delay(true), ec);
        socket.non_blocking(true, ec);
        app_.counters().connection_opened();
        read_request(std::make_shared<connection>(std::move(socket), poller_io_));
        do_accept();
    }

    /// Reads the next request on the poller without blocking, as Tomcat's NIO connector does: a worker is taken only
    /// once the whole request (head and body) is buffered, so a slow or idle client costs no worker. Waiting for the
    /// first byte is idleness; once it arrives the header clock runs for the rest of the request.
    void read_request(std::shared_ptr<connection> c)
    {
        if (!c->parser) {
            c->parser.emplace(c->storage);
            c->deadline = clock::now() + (c->buffer.size() == 0 ? context_.timeouts.idle : context_.timeouts.header);
        }
        error_code ec;
        if (parse_buffered(*c->parser, c->buffer, ec)) {
            c->parser.reset();
            if (!queue_.try_push(c))
                reject_overloaded(*c);
            return;
        }
        if (ec)
            return reject_malformed(*c, ec);
        c->timer.expires_at(c->deadline);
        c->timer.async_wait([c](error_code timer_ec) {
            if (!timer_ec)
                c->socket.cancel(timer_ec);
        });
        c->socket.async_wait(tcp::socket::wait_read, [this, c](error_code wait_ec) { on_readable(wait_ec, c); });
    }

    void on_readable(error_code ec, std::shared_ptr<connection> c)
    {
        c->timer.cancel();
        if (ec || stopping_)
            return close(*c);  // deadline passed or the server is stopping: nothing to answer
        const bool first_bytes = c->buffer.size() == 0 && !c->parser->got_some();
        auto n = c->socket.read_some(c->buffer.prepare(read_chunk), ec);
        if (ec == asio::error::would_block)
            return read_request(std::move(c));
        if (ec)
            return close(*c);  // the client went away
        c->buffer.commit(n);
        if (first_bytes)
            c->deadline = clock::now() + context_.timeouts.header;
        read_request(std::move(c));
    }

    void reject_malformed(connection& c, error_code ec)
    {
        if (is_answerable_read_error(ec)) {
            reject(ec, c.response);
            answer_now(c);
        }
        close(c);
    }

    void reject_overloaded(connection& c)
    {
        // Read what else is there so closing does not reset the connection before the client sees the answer.
        error_code ec;
        char discard[16 * 1024];
        c.socket.read_some(asio::buffer(discard), ec);
        http::make_error(http::failure::overloaded, "all workers busy and the queue is full", c.response);
        answer_now(c);
        close(c);
    }

    /// Writes a short error answer from the poller as far as the socket takes it at once; the poller never blocks.
    void answer_now(connection& c)
    {
        c.out.clear();
        http::serialize(c.response, false, c.out);
        error_code ec;
        c.socket.write_some(asio::buffer(c.out), ec);
        app_.counters().request_rejected(c.response.code);
    }

    void close(connection& c)
    {
        error_code ec;
        c.socket.shutdown(tcp::socket::shutdown_send, ec);
        c.socket.close(ec);
        app_.counters().connection_closed();
    }

    void work()
    {
        while (auto c = queue_.pop()) {
            if (serve(*c))
                asio::post(poller_io_, [this, c = std::move(c)]() mutable { read_request(std::move(c)); });
            else
                close(*c);
        }
    }

    /// Serves the request buffered on `c`, blocking this worker; true when the connection stays open.
    bool serve(connection& c)
    {
        blocking_stream stream(c.socket, abort_);
        app_.counters().request_started();
        auto req = c.storage.view();
        bool keep_alive = req.keep_alive && !stopping_;
        std::optional<bool> streamed;
        if (app_.plan(req, c.plan, c.response)) {
            wait_or_call(c);
            if (c.response.code == http::status::ok)
                streamed = do_work(stream, c, keep_alive);
        }
        bool written = streamed ? *streamed : write_response(stream, c, keep_alive);
        app_.counters().request_finished(c.plan.route, c.response.code);
        return written && keep_alive && !c.response.close;
    }

    /// Stage 1: the downstream call or the delay, blocking this worker either way.
    void wait_or_call(connection& c)
    {
        c.response.clear();
        if (c.plan.calls_downstream()) {
            app_.downstream_target(c.plan, c.target);
            auto outcome = downstream_->get(c.target);
            if (outcome.failed)
                app_.respond_downstream_failure(*outcome.failed, outcome.detail, c.response);
        } else if (c.plan.delay_millis > 0) {
            abort_.sleep_for(std::chrono::milliseconds(c.plan.delay_millis));
        }
    }

    /// Stages 2 and 3. A stream writes itself and returns whether that succeeded; other endpoints leave their
    /// answer in the connection's response and return nothing.
    std::optional<bool> do_work(blocking_stream& stream, connection& c, bool keep_alive)
    {
        switch (c.plan.what) {
        case endpoints::work::respond: app_.respond(c.plan, c.response); break;
        case endpoints::work::compute: app_.respond(c.plan, endpoints::sha256_chain(c.plan.iterations), c.response); break;
        case endpoints::work::compute_offloaded:
            // The worker blocks on the future while a compute thread does the work.
            app_.respond(c.plan, context_.offload.async_compute(c.plan.iterations, asio::use_future).get(),
                         c.response);
            break;
        case endpoints::work::stream: return stream_events(stream, c, keep_alive);
        }
        return std::nullopt;
    }

    bool stream_events(blocking_stream& stream, connection& c, bool keep_alive)
    {
        c.out.clear();
        http::serialize_event_stream_head(keep_alive, c.out);
        for (std::uint32_t i = 0; i < c.plan.stream.count; ++i) {
            if (i != 0 && c.plan.stream.interval_millis > 0 &&
                !abort_.sleep_for(std::chrono::milliseconds(c.plan.stream.interval_millis)))
                return false;
            // Demand-driven: event i+1 is produced only after event i was handed to the socket.
            app_.stream_event(c.plan, i, c.out);
            if (!write(stream, c.out))
                return false;
            c.out.clear();
        }
        return true;
    }

    bool write_response(blocking_stream& stream, connection& c, bool keep_alive) const
    {
        c.out.clear();
        http::serialize(c.response, keep_alive, c.out);
        return write(stream, c.out);
    }

    bool write(blocking_stream& stream, const std::string& out) const
    {
        error_code ec;
        stream.expires_after(context_.timeouts.write);
        asio::write(stream, asio::buffer(out), ec);
        return !ec;
    }

    static constexpr std::size_t read_chunk = 4096;

    const server_context& context_;
    endpoints::app& app_;
    abort_signal abort_;
    asio::io_context poller_io_{1};
    tcp::acceptor acceptor_;
    std::optional<asio::steady_timer> accept_timer_;
    std::optional<downstream_client> downstream_;
    work_queue queue_;
    std::thread poller_;
    std::vector<std::thread> workers_;
    std::atomic<bool> stopping_{false};
    std::uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<server> make_pool_server(const server_context& context)
{
    return std::make_unique<pool_server>(context);
}

}  // namespace execbench::models
