#pragma once

#include "execbench/endpoints/metrics.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace execbench::models {

// Plumbing every model shares: binding, resolving, accept back-off, draining. How a model waits is not here.

/// Opens, binds and listens on host:port with SO_REUSEADDR and a large backlog; throws std::system_error.
void open_acceptor(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, std::uint16_t port);

/// Resolves the downstream server once at start-up; throws std::system_error when it cannot be resolved.
boost::asio::ip::tcp::resolver::results_type resolve_downstream(const http::url& downstream);

/// How long to wait before accepting again after `ec` (long when out of descriptors, so accept does not spin).
std::chrono::milliseconds accept_backoff(const boost::system::error_code& ec) noexcept;

/// How often connection deadlines are checked: a quarter of the shortest client timeout, at most 250 ms, so a
/// deadline fires at most that late.
std::chrono::milliseconds sweep_period(const http::timeouts& timeouts) noexcept;

/// Starts a thread that runs `io` until it is stopped (kept running while idle).
std::thread run_in_thread(boost::asio::io_context& io);

/// Waits until no request is in flight or `deadline` passes; true when drained.
bool wait_for_drain(const endpoints::metrics& counters, std::chrono::steady_clock::time_point deadline);

}  // namespace execbench::models
