#include "server_support.hpp"

#include "execbench/models/server.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <system_error>
#include <thread>

#include <sys/socket.h>

namespace execbench::models {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void open_acceptor(tcp::acceptor& acceptor, const std::string& host, std::uint16_t port, int backlog)
{
    boost::system::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (ec)
        throw std::system_error(ec, "--host '" + host + "' is not an IP address");
    tcp::endpoint endpoint{address, port};
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint, ec);
    if (ec)
        throw std::system_error(ec, "cannot bind " + host + ":" + std::to_string(port));
    // Bursts of thousands of simultaneous connects are the point of some scenarios, so the default is large; the
    // kernel caps it at net.core.somaxconn anyway. A small one (Tomcat's acceptCount is 100) is the accept storm's.
    acceptor.listen(backlog);
}

tcp::resolver::results_type resolve_downstream(const http::url& downstream)
{
    asio::io_context io;
    tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto results = resolver.resolve(downstream.host, std::to_string(downstream.port), ec);
    if (ec)
        throw std::system_error(ec, "cannot resolve downstream host '" + downstream.host + "'");
    return results;
}

std::chrono::milliseconds accept_backoff(const boost::system::error_code& ec) noexcept
{
    if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
        ec.value() == ENFILE)
        return std::chrono::milliseconds(100);
    return std::chrono::milliseconds(5);
}

void set_up_connection(socket_type& socket) noexcept
{
    boost::system::error_code ec;
    socket.set_option(tcp::no_delay(true), ec);
    socket.non_blocking(true, ec);
}

listener::listener(asio::io_context& io, const std::string& host, std::uint16_t port, int backlog)
    : acceptor_(asio::make_strand(io)), backoff_(acceptor_.get_executor())
{
    open_acceptor(acceptor_, host, port, backlog);
    port_ = acceptor_.local_endpoint().port();
}

void listener::start(std::vector<asio::io_context*> targets, serve_fn serve)
{
    targets_ = std::move(targets);
    serve_ = std::move(serve);
    asio::post(acceptor_.get_executor(), [this] { do_accept(); });
}

void listener::stop()
{
    stopped_ = true;  // a connection accepted from now on is closed unanswered, as once the socket is closed
    asio::post(acceptor_.get_executor(), [this] {
        boost::system::error_code ec;
        acceptor_.close(ec);
        backoff_.cancel();
    });
}

void listener::do_accept()
{
    auto target = next_++ % targets_.size();
    acceptor_.async_accept(targets_[target]->get_executor(),
                           [this, target](const boost::system::error_code& ec, socket_type socket) {
                               on_accept(ec, std::move(socket), target);
                           });
}

void listener::on_accept(const boost::system::error_code& ec, socket_type socket, std::size_t target)
{
    if (stopped_ || ec == asio::error::operation_aborted)
        return;
    if (ec) {
        backoff_.expires_after(accept_backoff(ec));
        backoff_.async_wait([this](const boost::system::error_code& wait_ec) {
            if (!wait_ec && !stopped_)
                do_accept();
        });
        return;
    }
    set_up_connection(socket);
    serve_(std::move(socket), target);
    do_accept();
}

void deadline_sweep::watch(deadline& d, int fd)
{
    std::lock_guard lock(mutex_);
    watched_.emplace(&d, fd);
}

void deadline_sweep::forget(deadline& d)
{
    std::lock_guard lock(mutex_);
    watched_.erase(&d);
}

void deadline_sweep::start(timer_type& timer, std::chrono::milliseconds period)
{
    timer.expires_after(period);
    timer.async_wait([this, &timer, period](const boost::system::error_code& ec) {
        if (ec)
            return;
        sweep();
        start(timer, period);
    });
}

void deadline_sweep::sweep()
{
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::lock_guard lock(mutex_);
    for (auto& [d, fd] : watched_) {
        if (d->at_.load(std::memory_order_relaxed) > now)
            continue;
        d->expires_never();
        ::shutdown(fd, SHUT_RDWR);
    }
}

std::chrono::milliseconds sweep_period(const http::timeouts& timeouts) noexcept
{
    auto shortest = std::min({timeouts.header, timeouts.idle, timeouts.write});
    return std::clamp(shortest / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(250));
}

std::thread run_in_thread(asio::io_context& io)
{
    return std::thread([&io] {
        auto guard = asio::make_work_guard(io);
        io.run();
    });
}

bool wait_for_drain(const endpoints::request_counters& counters, std::chrono::steady_clock::time_point deadline)
{
    while (counters.in_flight() > 0) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

}  // namespace execbench::models
