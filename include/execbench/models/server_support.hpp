#pragma once

#include "execbench/endpoints/metrics.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/http/response.hpp"
#include "execbench/http/url.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace execbench::models {

/// Plumbing every model shares: binding, resolving, reading errors, draining. How a model waits is not here.

/// Opens, binds and listens on host:port with SO_REUSEADDR and a large backlog; throws std::system_error.
void open_acceptor(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port);

/// Resolves the downstream server once at start-up; throws std::system_error when it cannot be resolved.
boost::asio::ip::tcp::resolver::results_type resolve_downstream(const http::url& downstream);

/// Feeds the buffered bytes to `parser`: true once the request is complete; false when more bytes are needed
/// (`ec` clear) or the request is malformed (`ec` set). Consumes what the parser used.
bool parse_buffered(http::request_parser& parser, boost::beast::flat_buffer& buffer, boost::system::error_code& ec);

/// True for request read errors the client should hear about (a malformed request); false for those that
/// leave nobody to answer (the peer left, a timeout closed the stream).
bool is_answerable_read_error(const boost::system::error_code& ec) noexcept;

/// Fills `out` with the 4xx answer for a request that could not be read.
void reject(const boost::system::error_code& ec, http::response& out);

/// How long to wait before accepting again after `ec` (long when out of descriptors, so accept does not spin).
std::chrono::milliseconds accept_backoff(const boost::system::error_code& ec) noexcept;

/// How often connection deadlines are checked: a quarter of the shortest client timeout, at most 250 ms, so a
/// deadline fires at most that late.
std::chrono::milliseconds sweep_period(const http::timeouts& timeouts) noexcept;

/// Idle keep-alive connections to the downstream server, shared by the threads of one server. The lock is held
/// only to push or pop; the loop model needs none and keeps a plain vector per loop.
template <class Connection>
class idle_connections {
public:
    /// An idle connection, or null when there is none.
    std::unique_ptr<Connection> take()
    {
        std::lock_guard lock(mutex_);
        if (idle_.empty())
            return nullptr;
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
    }

    /// Keeps a connection whose last answer left it reusable.
    void give_back(std::unique_ptr<Connection> c)
    {
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(c));
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<Connection>> idle_;
};

/// Waits until no request is in flight or `deadline` passes; true when drained.
bool wait_for_drain(const endpoints::metrics& counters, std::chrono::steady_clock::time_point deadline);

}  // namespace execbench::models
