#pragma once

#include "execbench/endpoints/request_counters.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"

#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace execbench::models {

// Plumbing every model shares: binding, accepting with back-off, resolving, draining. How a model waits is not here.

/// Opens, binds and listens on host:port with SO_REUSEADDR and a large backlog; throws std::system_error.
void open_acceptor(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port,
                   int backlog);

/// Resolves the downstream server once at start-up; throws std::system_error when it cannot be resolved.
boost::asio::ip::tcp::resolver::results_type resolve_downstream(const http::url& downstream);

/// How long to wait before accepting again after `ec` (long when out of descriptors, so accept does not spin).
std::chrono::milliseconds accept_backoff(const boost::system::error_code& ec) noexcept;

// Sockets and timers bound to one io_context's executor: no type erasure on the hot path (`any_io_executor`
// costs a heap-allocated function object and an indirect call per completion).
/// A socket bound to an io_context's executor.
using socket_type = boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;
/// A steady timer bound to an io_context's executor.
using timer_type =
    boost::asio::basic_waitable_timer<std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>,
                                      boost::asio::io_context::executor_type>;

/// Prepares an accepted socket the way every model serves it: Nagle off (an answer is written whole, at once) and
/// non-blocking (a model tries the socket first and waits for readiness only when it would block).
void set_up_connection(socket_type& socket) noexcept;

/// The accept loop of every model (Beast's `listener`, with `do_accept` / `on_accept`): accepts until stopped, binds
/// each new socket to the next of `targets` in turn and hands it, set up, to `serve`. After a failed accept (out of
/// descriptors, say) it waits `accept_backoff(ec)` instead of spinning. Its handlers run on a strand of `io`, so
/// stop() is safe while an accept completes on another of `io`'s threads (fiber's carriers share one io_context).
class listener {
public:
    /// Receives a new connection and the index in `targets` of the io_context its socket is bound to.
    using serve_fn = std::function<void(socket_type socket, std::size_t target)>;

    /// Opens, binds and listens on host:port with `backlog` (see `open_acceptor`); accepting will run on `io`.
    listener(boost::asio::io_context& io, const std::string& host, std::uint16_t port, int backlog);

    /// The port actually bound.
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// Starts accepting; the first accept is queued on `io`.
    void start(std::vector<boost::asio::io_context*> targets, serve_fn serve);
    /// Stops accepting, from any thread: closes the listening socket on `io`.
    void stop();

private:
    void do_accept();
    void on_accept(const boost::system::error_code& ec, socket_type socket, std::size_t target);

    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer backoff_;
    std::vector<boost::asio::io_context*> targets_;
    serve_fn serve_;
    std::size_t next_ = 0;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopped_{false};
};

/// A connection's deadline, as a `deadline_sweep` reads it: setting one on the hot path is a single store.
class deadline {
public:
    /// The deadline is `d` from now.
    void expires_after(std::chrono::steady_clock::duration d) noexcept
    {
        at_.store((std::chrono::steady_clock::now() + d).time_since_epoch().count(), std::memory_order_relaxed);
    }
    /// No deadline.
    void expires_never() noexcept { at_.store(never, std::memory_order_relaxed); }

private:
    friend class deadline_sweep;
    static constexpr std::chrono::steady_clock::rep never = std::numeric_limits<std::chrono::steady_clock::rep>::max();
    std::atomic<std::chrono::steady_clock::rep> at_{never};
};

/// The deadlines of open connections, checked by a periodic sweep rather than a timer per operation. When one has
/// passed, the sweep shuts the connection's descriptor down (`shutdown(2)`: safe from any thread, and the socket
/// object is not touched); its pending wait then sees end-of-stream or a failed write, and the connection closes
/// without an answer. Thread-safe; a connection must be forgotten before its socket is closed.
class deadline_sweep {
public:
    /// Watches `d`, the deadline of the connection on descriptor `fd`.
    void watch(deadline& d, int fd);
    /// Stops watching `d`; harmless when not watched.
    void forget(deadline& d);
    /// Sweeps every `period` on `timer`'s executor until the timer is cancelled or its io_context stops.
    void start(timer_type& timer, std::chrono::milliseconds period);

private:
    void sweep();

    std::mutex mutex_;
    std::unordered_map<deadline*, int> watched_;
};

/// How often connection deadlines are checked: a quarter of the shortest client timeout, at most 250 ms, so a
/// deadline fires at most that late.
std::chrono::milliseconds sweep_period(const http::timeouts& timeouts) noexcept;

/// Starts a thread that runs `io` until it is stopped (kept running while idle).
std::thread run_in_thread(boost::asio::io_context& io);

/// Waits until no request is in flight or `deadline` passes; true when drained.
bool wait_for_drain(const endpoints::request_counters& counters, std::chrono::steady_clock::time_point deadline);

}  // namespace execbench::models
