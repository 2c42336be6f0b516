#include "execbench/models/fiber.hpp"

#include "execbench/http/client.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/models/offload_pool.hpp"
#include "execbench/models/server_support.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <atomic>
#include <limits>
#include <unordered_set>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace execbench::models {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

/// A keep-alive downstream client shared by all fibers; a call parks the calling fiber, never its carrier.
class downstream_client {
public:
    downstream_client(asio::io_context& io, const http::url& server, tcp::resolver::results_type endpoints,
                      const http::timeouts& timeouts)
        : io_(io), server_(server), endpoints_(std::move(endpoints)), timeouts_(timeouts)
    {
    }

    /// Sends GET `target` and returns the outcome once the answer is in.
    http::call_outcome get(std::string_view target, const asio::yield_context& yield)
    {
        std::string request;
        http::write_get_request(server_, target, request);
        for (;;) {
            error_code ec;
            auto stream = idle_.take();
            const bool reused = stream != nullptr;
            if (!reused) {
                stream = std::make_unique<beast::tcp_stream>(io_);
                stream->expires_after(timeouts_.downstream_connect);
                stream->async_connect(endpoints_, yield[ec]);
                if (ec)
                    return http::call_outcome::from_error(ec);
                stream->socket().set_option(tcp::no_delay(true), ec);
            }
            stream->expires_after(timeouts_.downstream_response);
            asio::async_write(*stream, asio::buffer(request), yield[ec]);
            beast::flat_buffer buffer;
            http::downstream_parser parser;
            http::configure(parser);
            if (!ec)
                beast::http::async_read(*stream, buffer, parser, yield[ec]);
            if (ec) {
                // A pooled connection the server already closed fails at once: retry on a fresh one.
                if (reused && http::is_stale_connection_error(ec))
                    continue;
                return http::call_outcome::from_error(ec);
            }
            if (parser.keep_alive() && buffer.size() == 0) {
                stream->expires_never();
                idle_.give_back(std::move(stream));
            }
            return http::judge_response(parser);
        }
    }

private:
    asio::io_context& io_;
    const http::url& server_;
    tcp::resolver::results_type endpoints_;
    const http::timeouts& timeouts_;
    idle_connections<beast::tcp_stream> idle_;
};

using clock = std::chrono::steady_clock;
using socket_type = asio::basic_stream_socket<tcp, asio::io_context::executor_type>;

/// A fiber's socket and deadline, shared with the deadline sweep.
///
/// Deadlines are checked by a periodic sweep rather than a timer per operation; when one passes, the sweep posts a
/// cancel to the fiber's own executor so the socket is only ever touched in the fiber's sequence.
struct fiber_connection {
    fiber_connection(socket_type s, asio::any_io_executor ex) : socket(std::move(s)), executor(std::move(ex)) {}

    void expires_after(clock::duration d) noexcept
    {
        deadline.store((clock::now() + d).time_since_epoch().count(), std::memory_order_relaxed);
    }
    void expires_never() noexcept { deadline.store(never, std::memory_order_relaxed); }

    static constexpr clock::rep never = std::numeric_limits<clock::rep>::max();
    socket_type socket;
    asio::any_io_executor executor;
    std::atomic<clock::rep> deadline{never};
};

class fiber_server final : public server {
public:
    explicit fiber_server(const server_context& context)
        : context_(context), app_(context.app), io_(static_cast<int>(context.threads)), acceptor_(io_)
    {
    }

    ~fiber_server() override { shutdown(std::chrono::steady_clock::now()); }

    void listen() override
    {
        open_acceptor(acceptor_, context_.host, context_.port);
        port_ = acceptor_.local_endpoint().port();
    }

    void start() override
    {
        downstream_.emplace(io_, context_.downstream, resolve_downstream(context_.downstream), context_.timeouts);
        spawn_fiber([this](const asio::yield_context& yield) { accept_loop(yield); });
        spawn_fiber([this](const asio::yield_context& yield) { sweep_loop(yield); });
        for (unsigned i = 0; i < context_.threads; ++i)
            carriers_.emplace_back([this] {
                auto guard = asio::make_work_guard(io_);
                io_.run();
            });
    }

    [[nodiscard]] std::uint16_t port() const noexcept override { return port_; }

    bool shutdown(std::chrono::steady_clock::time_point deadline) override
    {
        if (carriers_.empty())
            return true;
        stopping_ = true;
        asio::post(io_, [this] {
            error_code ec;
            acceptor_.close(ec);
        });
        bool drained = wait_for_drain(app_.counters(), deadline);
        io_.stop();
        for (auto& carrier : carriers_)
            carrier.join();
        carriers_.clear();
        return drained;
    }

private:
    template <class Function>
    void spawn_fiber(Function&& function)
    {
        // With several carriers a fiber may resume on any of them; its strand keeps its handlers in sequence.
        asio::any_io_executor executor = context_.threads > 1 ? asio::any_io_executor(asio::make_strand(io_))
                                                              : asio::any_io_executor(io_.get_executor());
        asio::spawn(executor, std::allocator_arg,
                    boost::context::protected_fixedsize_stack(std::size_t{context_.fiber_stack_kb} * 1024),
                    std::forward<Function>(function), asio::detached);
    }

    void accept_loop(const asio::yield_context& yield)
    {
        asio::steady_timer backoff(yield.get_executor());
        while (!stopping_) {
            error_code ec;
            socket_type socket = acceptor_.async_accept(io_.get_executor(), yield[ec]);
            if (ec == asio::error::operation_aborted || stopping_)
                return;
            if (ec) {
                // Out of descriptors (or another transient error): back off instead of spinning on accept.
                backoff.expires_after(accept_backoff(ec));
                backoff.async_wait(yield[ec]);
                continue;
            }
            spawn_fiber([this, socket = std::move(socket)](const asio::yield_context& fiber_yield) mutable {
                serve(std::move(socket), fiber_yield);
            });
        }
    }

    /// Checks connection deadlines until the server stops.
    void sweep_loop(const asio::yield_context& yield)
    {
        asio::steady_timer tick(yield.get_executor());
        const auto period = sweep_period(context_.timeouts);
        while (!stopping_) {
            error_code ec;
            tick.expires_after(period);
            tick.async_wait(yield[ec]);
            const auto now = clock::now().time_since_epoch().count();
            std::lock_guard lock(connections_mutex_);
            for (const auto& c : connections_) {
                if (c->deadline.load(std::memory_order_relaxed) > now)
                    continue;
                c->expires_never();
                asio::post(c->executor, [c] {
                    error_code cancel_ec;
                    c->socket.cancel(cancel_ec);  // the fiber's pending wait fails and it closes the connection
                });
            }
        }
    }

    void serve(socket_type socket, const asio::yield_context& yield)
    {
        app_.counters().connection_opened();
        auto conn = std::make_shared<fiber_connection>(std::move(socket), yield.get_executor());
        {
            std::lock_guard lock(connections_mutex_);
            connections_.insert(conn);
        }
        error_code ec;
        conn->socket.set_option(tcp::no_delay(true), ec);
        conn->socket.non_blocking(true, ec);
        beast::flat_buffer buffer;
        asio::steady_timer timer(yield.get_executor());
        http::request_storage storage;
        endpoints::plan plan;
        http::response response;
        std::string out;
        std::string target;

        for (;;) {
            http::request_parser parser(storage);
            if (!read_request(*conn, parser, buffer, yield, ec)) {
                if (is_answerable_read_error(ec)) {
                    reject(ec, response);
                    write_response(*conn, response, false, out, yield);
                    app_.counters().request_rejected(response.code);
                }
                break;
            }

            app_.counters().request_started();
            auto req = storage.view();
            bool keep_alive = req.keep_alive && !stopping_;
            std::optional<bool> streamed;
            if (app_.plan(req, plan, response)) {
                wait_or_call(plan, response, target, timer, yield);
                if (response.code == http::status::ok)
                    streamed = do_work(*conn, plan, response, keep_alive, out, timer, yield);
            }
            bool written = streamed ? *streamed : write_response(*conn, response, keep_alive, out, yield);
            app_.counters().request_finished(plan.route, response.code);
            if (!written || !keep_alive || response.close)
                break;
        }
        conn->socket.shutdown(tcp::socket::shutdown_send, ec);
        conn->socket.close(ec);
        {
            std::lock_guard lock(connections_mutex_);
            connections_.erase(conn);
        }
        app_.counters().connection_closed();
    }

    /// Reads one request into `parser`, parking the fiber while the socket has nothing to read. Waiting for the
    /// first byte is idleness; once it arrives the header clock starts.
    bool read_request(fiber_connection& conn, http::request_parser& parser, beast::flat_buffer& buffer,
                      const asio::yield_context& yield, error_code& ec)
    {
        bool idle = buffer.size() == 0;
        conn.expires_after(idle ? context_.timeouts.idle : context_.timeouts.header);
        while (!parse_buffered(parser, buffer, ec)) {
            if (ec)
                return false;
            // Wait for readiness first: right after a response there is usually nothing to read yet.
            conn.socket.async_wait(tcp::socket::wait_read, yield[ec]);
            if (ec)
                return false;
            auto n = conn.socket.read_some(buffer.prepare(read_chunk), ec);
            if (ec == asio::error::would_block) {
                ec = {};
                continue;
            }
            if (ec)
                return false;
            buffer.commit(n);
            if (idle) {
                idle = false;
                conn.expires_after(context_.timeouts.header);
            }
        }
        conn.expires_never();
        return true;
    }

    /// Stage 1: the downstream call or the delay. Leaves an error in `response` when the call failed.
    void wait_or_call(const endpoints::plan& plan, http::response& response, std::string& target,
                      asio::steady_timer& timer, const asio::yield_context& yield)
    {
        response.clear();
        if (plan.calls_downstream()) {
            app_.downstream_target(plan, target);
            auto outcome = downstream_->get(target, yield);
            if (outcome.failed)
                app_.respond_downstream_failure(*outcome.failed, outcome.detail, response);
        } else if (plan.delay_millis > 0) {
            error_code ec;
            timer.expires_after(std::chrono::milliseconds(plan.delay_millis));
            timer.async_wait(yield[ec]);
        }
    }

    /// Stages 2 and 3: the endpoint's work. A stream writes itself and returns whether that succeeded; other
    /// endpoints leave their answer in `response` and return nothing.
    std::optional<bool> do_work(fiber_connection& conn, const endpoints::plan& plan, http::response& response, bool keep_alive,
                 std::string& out, asio::steady_timer& timer, const asio::yield_context& yield)
    {
        switch (plan.what) {
        case endpoints::work::respond: app_.respond(plan, response); break;
        case endpoints::work::compute:
            // On the carrier: a fiber that computes holds its carrier, as a virtual thread pins its carrier.
            app_.respond(plan, endpoints::sha256_chain(plan.iterations), response);
            break;
        case endpoints::work::compute_offloaded:
            app_.respond(plan, context_.offload.async_compute(plan.iterations, yield), response);
            break;
        case endpoints::work::stream: return stream_events(conn, plan, keep_alive, out, timer, yield);
        }
        return std::nullopt;
    }

    bool stream_events(fiber_connection& conn, const endpoints::plan& plan, bool keep_alive, std::string& out,
                       asio::steady_timer& timer, const asio::yield_context& yield)
    {
        out.clear();
        http::serialize_event_stream_head(keep_alive, out);
        for (std::uint32_t i = 0; i < plan.stream.count; ++i) {
            if (i != 0 && plan.stream.interval_millis > 0) {
                error_code ec;
                timer.expires_after(std::chrono::milliseconds(plan.stream.interval_millis));
                timer.async_wait(yield[ec]);
            }
            // Demand-driven: event i+1 is produced only after event i was handed to the socket.
            app_.stream_event(plan, i, out);
            if (!write(conn, out, yield))
                return false;
            out.clear();
        }
        return true;
    }

    bool write_response(fiber_connection& conn, const http::response& response, bool keep_alive,
                        std::string& out, const asio::yield_context& yield)
    {
        out.clear();
        http::serialize(response, keep_alive, out);
        return write(conn, out, yield);
    }

    /// Writes `out`, trying at once and parking the fiber only while the socket has no room.
    bool write(fiber_connection& conn, const std::string& out, const asio::yield_context& yield) const
    {
        conn.expires_after(context_.timeouts.write);
        std::size_t written = 0;
        while (written < out.size()) {
            error_code ec;
            written += conn.socket.write_some(asio::buffer(out) + written, ec);
            if (ec == asio::error::would_block)
                conn.socket.async_wait(tcp::socket::wait_write, yield[ec]);
            if (ec)
                return false;
        }
        conn.expires_never();
        return true;
    }

    static constexpr std::size_t read_chunk = 4096;

    const server_context& context_;
    endpoints::app& app_;
    asio::io_context io_;
    tcp::acceptor acceptor_;
    std::optional<downstream_client> downstream_;
    std::vector<std::thread> carriers_;
    std::mutex connections_mutex_;  // the sweep and the fibers on any carrier share the set
    std::unordered_set<std::shared_ptr<fiber_connection>> connections_;
    std::atomic<bool> stopping_{false};
    std::uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<server> make_fiber_server(const server_context& context)
{
    return std::make_unique<fiber_server>(context);
}

}  // namespace execbench::models
