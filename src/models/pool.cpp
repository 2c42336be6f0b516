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

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using clock = std::chrono::steady_clock;

/// Blocking reads and writes with a deadline over a socket in non-blocking mode: try the call, and when it would
/// block, poll() for the remaining time. A SyncReadStream and SyncWriteStream, so Beast's sync read works on it.
class blocking_stream {
public:
    explicit blocking_stream(tcp::socket& socket) : socket_(socket) {}

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
            pollfd fd{socket_.native_handle(), events, 0};
            int r = ::poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1'000'000)));
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
    clock::time_point deadline_ = clock::now();
};

/// A keep-alive downstream client for blocking workers: a locked stack of idle sockets.
class downstream_client {
public:
    downstream_client(const http::url& server, tcp::resolver::results_type endpoints, const http::timeouts& timeouts)
        : server_(server), endpoints_(std::move(endpoints)), timeouts_(timeouts)
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
            blocking_stream stream(*socket);
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
                blocking_stream stream(*socket);
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
    idle_connections<tcp::socket> idle_;
};

/// A client connection; owned by the poller while idle and by one worker while a request is served.
struct connection {
    connection(tcp::socket s, asio::io_context& poller) : socket(std::move(s)), idle_timer(poller) {}
    tcp::socket socket;
    asio::steady_timer idle_timer;
    beast::flat_buffer buffer;
    http::request_storage storage;
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
        downstream_.emplace(context_.downstream, resolve_downstream(context_.downstream), context_.timeouts);
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
        queue_.close();
        for (auto& worker : workers_)
            worker.join();
        workers_.clear();
        poller_io_.stop();
        poller_.join();
        return drained;
    }

private:
    // --- the poller thread: accepting and watching idle connections ---

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
        do_watch(std::make_shared<connection>(std::move(socket), poller_io_));
        do_accept();
    }

    /// An idle connection costs no worker: wait here until its next request starts arriving.
    void do_watch(std::shared_ptr<connection> c)
    {
        c->idle_timer.expires_after(context_.timeouts.idle);
        c->idle_timer.async_wait([c](error_code ec) {
            if (!ec)
                c->socket.cancel(ec);
        });
        c->socket.async_wait(tcp::socket::wait_read, [this, c](error_code ec) { on_readable(ec, c); });
    }

    void on_readable(error_code ec, std::shared_ptr<connection> c)
    {
        c->idle_timer.cancel();
        if (ec || stopping_)
            return close(*c);
        if (!queue_.try_push(c))
            reject_overloaded(*c);
    }

    void reject_overloaded(connection& c)
    {
        // The request is still unread: read what is there so closing does not reset the connection before the
        // client sees the answer.
        error_code ec;
        char discard[16 * 1024];
        c.socket.read_some(asio::buffer(discard), ec);
        http::response response;
        http::make_error(http::failure::overloaded, "all workers busy and the queue is full", response);
        std::string out;
        http::serialize(response, false, out);
        c.socket.write_some(asio::buffer(out), ec);
        app_.counters().request_rejected(response.code);
        close(c);
    }

    void close(connection& c)
    {
        error_code ec;
        c.socket.shutdown(tcp::socket::shutdown_send, ec);
        c.socket.close(ec);
        app_.counters().connection_closed();
    }

    // --- the workers: one request start to finish, blocking ---

    void work()
    {
        while (auto c = queue_.pop()) {
            if (serve(*c))
                asio::post(poller_io_, [this, c = std::move(c)]() mutable { do_watch(std::move(c)); });
            else
                close(*c);
        }
    }

    /// Serves the requests that are already arriving on `c`; true when the connection stays open.
    bool serve(connection& c)
    {
        blocking_stream stream(c.socket);
        do {
            http::request_parser parser(c.storage);
            stream.expires_after(context_.timeouts.header);
            error_code ec;
            beast::http::read(stream, c.buffer, parser, ec);
            if (ec) {
                if (is_answerable_read_error(ec)) {
                    reject(ec, c.response);
                    write_response(stream, c, false);
                    app_.counters().request_rejected(c.response.code);
                }
                return false;
            }
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
            if (!written || !keep_alive || c.response.close)
                return false;
        } while (c.buffer.size() != 0);  // pipelined requests are served before the connection goes back
        return true;
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
            std::this_thread::sleep_for(std::chrono::milliseconds(c.plan.delay_millis));
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
            if (i != 0 && c.plan.stream.interval_millis > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(c.plan.stream.interval_millis));
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

    const server_context& context_;
    endpoints::app& app_;
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
