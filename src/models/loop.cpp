#include "execbench/models/loop.hpp"

#include "execbench/http/client.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"
#include "execbench/models/server_support.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

/// One event loop: its io_context, its thread and its own downstream client (nothing shared between loops).
struct event_loop;

/// A keep-alive downstream client owned by one loop; callbacks only, no locks.
class downstream_client {
public:
    using handler = std::function<void(http::call_outcome)>;

    downstream_client(asio::io_context& context, const http::url& server, tcp::resolver::results_type endpoints,
                      const http::timeouts& timeouts)
        : context_(context), server_(server), endpoints_(std::move(endpoints)), timeouts_(timeouts)
    {
    }

    /// Sends GET `target` and calls `done` on this loop with the outcome.
    void async_get(std::string_view target, handler done)
    {
        auto c = std::make_shared<call>(*this, target, std::move(done));
        c->start();
    }

private:
    class call : public std::enable_shared_from_this<call> {
    public:
        call(downstream_client& client, std::string_view target, handler done)
            : client_(client), done_(std::move(done))
        {
            http::write_get_request(client_.server_, target, request_);
        }

        void start()
        {
            if (!client_.idle_.empty()) {
                stream_ = std::move(client_.idle_.back());
                client_.idle_.pop_back();
                reused_ = true;
                do_write();
            } else {
                do_connect();
            }
        }

    private:
        void do_connect()
        {
            reused_ = false;
            stream_ = std::make_unique<beast::tcp_stream>(client_.context_);
            stream_->expires_after(client_.timeouts_.downstream_connect);
            stream_->async_connect(client_.endpoints_,
                                   [self = shared_from_this()](error_code ec, const tcp::endpoint&) {
                                       self->on_connect(ec);
                                   });
        }

        void on_connect(error_code ec)
        {
            if (ec)
                return finish(http::call_outcome::from_error(ec));
            stream_->socket().set_option(tcp::no_delay(true), ec);
            do_write();
        }

        void do_write()
        {
            stream_->expires_after(client_.timeouts_.downstream_response);
            asio::async_write(*stream_, asio::buffer(request_),
                              [self = shared_from_this()](error_code ec, std::size_t) { self->on_write(ec); });
        }

        void on_write(error_code ec)
        {
            if (ec)
                return retry_or_finish(ec);
            parser_.emplace();
            http::configure(*parser_);
            beast::http::async_read(*stream_, buffer_, *parser_,
                                    [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
        }

        void on_read(error_code ec)
        {
            if (ec)
                return retry_or_finish(ec);
            auto outcome = http::judge_response(*parser_);
            if (parser_->keep_alive() && buffer_.size() == 0) {
                stream_->expires_never();
                client_.idle_.push_back(std::move(stream_));
            }
            finish(std::move(outcome));
        }

        void retry_or_finish(error_code ec)
        {
            // A pooled connection the server already closed fails at once; that is not the downstream's fault.
            if (reused_ && http::is_stale_connection_error(ec)) {
                buffer_.clear();
                return do_connect();
            }
            finish(http::call_outcome::from_error(ec));
        }

        void finish(http::call_outcome outcome) { done_(std::move(outcome)); }

        downstream_client& client_;
        handler done_;
        std::string request_;
        std::unique_ptr<beast::tcp_stream> stream_;
        beast::flat_buffer buffer_;
        std::optional<http::downstream_parser> parser_;
        bool reused_ = false;
    };

    asio::io_context& context_;
    const http::url& server_;
    tcp::resolver::results_type endpoints_;
    const http::timeouts& timeouts_;
    std::vector<std::unique_ptr<beast::tcp_stream>> idle_;
};

using loop_executor = asio::io_context::executor_type;
// Concrete executor types: the hot path pays for no type erasure.
using socket_type = asio::basic_stream_socket<tcp, loop_executor>;
using timer_type = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>,
                                              loop_executor>;
using clock = std::chrono::steady_clock;

class connection;

/// One event loop: its io_context, its thread, its connections and its own downstream client; nothing is shared
/// between loops.
struct event_loop {
    event_loop(const server_context& context, tcp::resolver::results_type downstream_endpoints)
        : io(1), downstream(io, context.downstream, std::move(downstream_endpoints), context.timeouts),
          sweep_timer(io.get_executor())
    {
    }

    /// Connections by address, for the deadline sweep; declared before `io` so it outlives the handlers
    /// (and connections) that `io` destroys.
    std::unordered_set<connection*> connections;
    asio::io_context io;
    downstream_client downstream;
    timer_type sweep_timer;
    std::thread thread;

    /// Starts checking connection deadlines every `period`.
    void start_sweeping(clock::duration period);
};

/// One client connection, served by callbacks on its loop.
///
/// Deadlines are a time stored in the connection and checked by the loop's periodic sweep, not a timer per
/// operation: on the hot path setting one is a store. Reads wait for readiness first and then read without
/// blocking, and writes are tried at once; the reactor is involved only when the socket has nothing to read or no
/// room to write. That keeps the system calls per request at one read and one write, as nginx does.
class connection : public std::enable_shared_from_this<connection> {
public:
    connection(socket_type socket, event_loop& loop, const server_context& context, const std::atomic<bool>& stopping)
        : socket_(std::move(socket)), timer_(loop.io.get_executor()), loop_(loop), context_(context),
          app_(context.app), stopping_(stopping)
    {
        app_.counters().connection_opened();
        loop_.connections.insert(this);
    }

    ~connection()
    {
        loop_.connections.erase(this);
        app_.counters().connection_closed();
    }

    void start()
    {
        error_code ec;
        socket_.set_option(tcp::no_delay(true), ec);
        socket_.non_blocking(true, ec);
        do_read();
    }

    /// Called by the sweep: cancels whatever the connection waits for when its deadline has passed.
    void check_deadline(clock::time_point now)
    {
        if (now < deadline_)
            return;
        deadline_ = clock::time_point::max();
        error_code ec;
        socket_.cancel(ec);  // the pending wait completes with operation_aborted and the connection closes
    }

private:
    void do_read()
    {
        parser_.emplace(storage_);
        if (buffer_.size() != 0) {
            // A pipelined request is already buffered; go through the loop so a long pipeline cannot recurse.
            deadline_ = clock::now() + context_.timeouts.header;
            asio::post(socket_.get_executor(), [self = shared_from_this()] { self->parse_buffered(); });
            return;
        }
        // Waiting for the first byte is idleness; once it arrives the header clock starts.
        deadline_ = clock::now() + context_.timeouts.idle;
        do_wait_readable();
    }

    void do_wait_readable()
    {
        socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) { self->on_readable(ec); });
    }

    void on_readable(error_code ec)
    {
        if (ec)
            return close();  // deadline passed or the server is stopping: nothing to answer
        const bool first_bytes = buffer_.size() == 0 && !parser_->got_some();
        auto n = socket_.read_some(buffer_.prepare(read_chunk), ec);
        if (ec == asio::error::would_block)
            return do_wait_readable();
        if (ec)
            return close();  // the client went away (eof before or during a request)
        buffer_.commit(n);
        if (first_bytes)
            deadline_ = clock::now() + context_.timeouts.header;
        parse_buffered();
    }

    void parse_buffered()
    {
        error_code ec;
        if (models::parse_buffered(*parser_, buffer_, ec)) {
            deadline_ = clock::time_point::max();
            return on_read({});
        }
        if (ec)
            return on_read(ec);
        do_wait_readable();
    }

    void on_read(error_code ec)
    {
        if (ec) {
            if (!is_answerable_read_error(ec))
                return close();
            reject(ec, response_);
            keep_alive_ = false;
            return do_write_response();
        }
        app_.counters().request_started();
        started_ = true;
        auto req = storage_.view();
        keep_alive_ = req.keep_alive && !stopping_.load(std::memory_order_relaxed);
        if (!app_.plan(req, plan_, response_))
            return do_write_response();
        do_wait_or_call();
    }

    void do_wait_or_call()
    {
        if (plan_.calls_downstream()) {
            app_.downstream_target(plan_, target_);
            loop_.downstream.async_get(target_, [self = shared_from_this()](http::call_outcome outcome) {
                self->on_downstream(std::move(outcome));
            });
        } else if (plan_.delay_millis > 0) {
            timer_.expires_after(std::chrono::milliseconds(plan_.delay_millis));
            timer_.async_wait([self = shared_from_this()](error_code) { self->do_work(); });
        } else {
            do_work();
        }
    }

    void on_downstream(http::call_outcome outcome)
    {
        if (outcome.failed) {
            app_.respond_downstream_failure(*outcome.failed, outcome.detail, response_);
            return do_write_response();
        }
        do_work();
    }

    void do_work()
    {
        switch (plan_.what) {
        case endpoints::work::respond:
            app_.respond(plan_, response_);
            return do_write_response();
        case endpoints::work::compute:
            // Deliberately on the loop thread: this is the naive reactive handler whose cost the study measures.
            app_.respond(plan_, endpoints::sha256_chain(plan_.iterations), response_);
            return do_write_response();
        case endpoints::work::compute_offloaded:
            context_.offload.async_compute(
                plan_.iterations,
                asio::bind_executor(loop_.io, [self = shared_from_this()](endpoints::digest d) { self->on_computed(d); }));
            return;
        case endpoints::work::stream: return do_stream_head();
        }
    }

    void on_computed(const endpoints::digest& d)
    {
        app_.respond(plan_, d, response_);
        do_write_response();
    }

    void do_write_response()
    {
        out_.clear();
        http::serialize(response_, keep_alive_, out_);
        if (response_.close)
            keep_alive_ = false;
        do_write([](connection& self) { self.on_response_written(); });
    }

    void on_response_written()
    {
        finish_request(response_.code);
        if (!keep_alive_)
            return close();
        do_read();
    }

    void do_stream_head()
    {
        out_.clear();
        http::serialize_event_stream_head(keep_alive_, out_);
        event_ = 0;
        do_stream_event();
    }

    void do_stream_event()
    {
        // Demand-driven: the next event is produced only when the previous write has completed.
        app_.stream_event(plan_, event_, out_);
        ++event_;
        do_write([](connection& self) { self.on_event_written(); });
    }

    void on_event_written()
    {
        out_.clear();
        if (event_ == plan_.stream.count) {
            finish_request(http::status::ok);
            if (!keep_alive_)
                return close();
            return do_read();
        }
        if (plan_.stream.interval_millis == 0) {
            // Through the loop, so a stream the socket keeps absorbing neither recurses nor starves the others.
            asio::post(socket_.get_executor(), [self = shared_from_this()] { self->do_stream_event(); });
            return;
        }
        timer_.expires_after(std::chrono::milliseconds(plan_.stream.interval_millis));
        timer_.async_wait([self = shared_from_this()](error_code) { self->do_stream_event(); });
    }

    /// Writes `out_`, trying at once and waiting for room only when the socket is full; then calls `next`.
    template <class Next>
    void do_write(Next next)
    {
        written_ = 0;
        deadline_ = clock::now() + context_.timeouts.write;
        continue_write(next);
    }

    template <class Next>
    void continue_write(Next next)
    {
        while (written_ < out_.size()) {
            error_code ec;
            written_ += socket_.write_some(asio::buffer(out_) + written_, ec);
            if (ec == asio::error::would_block) {
                socket_.async_wait(tcp::socket::wait_write, [self = shared_from_this(), next](error_code wait_ec) {
                    if (wait_ec)
                        return self->on_write_failed();
                    self->continue_write(next);
                });
                return;
            }
            if (ec)
                return on_write_failed();
        }
        deadline_ = clock::time_point::max();
        next(*this);
    }

    void on_write_failed()
    {
        finish_request(response_.code);
        close();
    }

    void finish_request(http::status code)
    {
        if (started_) {
            app_.counters().request_finished(plan_.route, code);
            started_ = false;
        } else {
            app_.counters().request_rejected(code);
        }
    }

    void close()
    {
        deadline_ = clock::time_point::max();
        error_code ec;
        socket_.shutdown(tcp::socket::shutdown_send, ec);
        socket_.close(ec);
    }

    static constexpr std::size_t read_chunk = 4096;

    socket_type socket_;
    beast::flat_buffer buffer_;
    timer_type timer_;
    event_loop& loop_;
    const server_context& context_;
    endpoints::app& app_;
    const std::atomic<bool>& stopping_;
    clock::time_point deadline_ = clock::time_point::max();
    http::request_storage storage_;
    std::optional<http::request_parser> parser_;
    endpoints::plan plan_;
    http::response response_;
    std::string out_;
    std::size_t written_ = 0;
    std::string target_;
    std::uint32_t event_ = 0;
    bool keep_alive_ = true;
    bool started_ = false;
};

void event_loop::start_sweeping(clock::duration period)
{
    sweep_timer.expires_after(period);
    sweep_timer.async_wait([this, period](error_code ec) {
        if (ec)
            return;
        auto now = clock::now();
        for (auto* c : connections)
            c->check_deadline(now);
        start_sweeping(period);
    });
}

class loop_server final : public server {
public:
    explicit loop_server(const server_context& context) : context_(context) {}

    ~loop_server() override { shutdown(std::chrono::steady_clock::now()); }

    void listen() override
    {
        accept_io_.emplace(1);
        acceptor_.emplace(*accept_io_);
        open_acceptor(*acceptor_, context_.host, context_.port);
        port_ = acceptor_->local_endpoint().port();
    }

    void start() override
    {
        auto downstream = resolve_downstream(context_.downstream);
        for (unsigned i = 0; i < context_.threads; ++i)
            loops_.push_back(std::make_unique<event_loop>(context_, downstream));
        // The acceptor moves to the first loop so accepting is just another callback there.
        auto protocol = acceptor_->local_endpoint().protocol();
        auto native = acceptor_->release();
        acceptor_.emplace(loops_.front()->io, protocol, native);
        accept_io_.reset();
        accept_timer_.emplace(loops_.front()->io);
        do_accept();
        for (auto& loop : loops_)
            loop->start_sweeping(sweep_period(context_.timeouts));
        for (auto& loop : loops_) {
            loop->thread = std::thread([&io = loop->io] {
                auto guard = asio::make_work_guard(io);
                io.run();
            });
        }
    }

    [[nodiscard]] std::uint16_t port() const noexcept override { return port_; }

    bool shutdown(std::chrono::steady_clock::time_point deadline) override
    {
        if (loops_.empty())
            return true;
        stopping_ = true;
        asio::post(loops_.front()->io, [this] {
            error_code ec;
            acceptor_->close(ec);
            accept_timer_->cancel();
        });
        bool drained = wait_for_drain(context_.app.counters(), deadline);
        for (auto& loop : loops_)
            loop->io.stop();
        for (auto& loop : loops_)
            if (loop->thread.joinable())
                loop->thread.join();
        acceptor_.reset();
        accept_timer_.reset();
        loops_.clear();
        return drained;
    }

private:
    void do_accept()
    {
        // Connections are spread round-robin over the loops; each is then owned by its loop alone.
        auto& target = *loops_[next_loop_++ % loops_.size()];
        acceptor_->async_accept(target.io.get_executor(), [this, &target](error_code ec, socket_type socket) {
            on_accept(ec, std::move(socket), target);
        });
    }

    void on_accept(error_code ec, socket_type socket, event_loop& target)
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
        asio::post(target.io, [this, &target, socket = std::move(socket)]() mutable {
            std::make_shared<connection>(std::move(socket), target, context_, stopping_)->start();
        });
        do_accept();
    }

    const server_context& context_;
    std::vector<std::unique_ptr<event_loop>> loops_;
    std::optional<asio::io_context> accept_io_;
    std::optional<tcp::acceptor> acceptor_;
    std::optional<asio::steady_timer> accept_timer_;
    std::atomic<bool> stopping_{false};
    std::size_t next_loop_ = 0;
    std::uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<server> make_loop_server(const server_context& context)
{
    return std::make_unique<loop_server>(context);
}

}  // namespace execbench::models
