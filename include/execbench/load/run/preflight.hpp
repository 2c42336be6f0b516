#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// What the pre-flight request got.
struct preflight_answer {
    int status = 0;
    std::chrono::microseconds latency{};  ///< from connecting to the whole answer, one request on a new connection
};

/// Sends the first request of the scenario's mix once, before any warm-up. Returns its status and latency when it
/// is 2xx; otherwise fails with the reason ("connection refused: nothing listens on ...", "no answer within
/// 5000ms", "answered 404: <the body's start>").
result<preflight_answer> preflight(const scenario& s, const target& t, std::chrono::milliseconds timeout);

/// A warning when an open loop's connections cannot carry its rate at `latency` (one request in flight per
/// connection, so by Little's law they carry at most connections / latency requests a second); nothing otherwise.
std::optional<std::string> open_loop_capacity_warning(const scenario& s, std::chrono::microseconds latency);

/// Warnings where the server's /health contradicts the scenario's `server` block: a scenario that wants a separate
/// downstream against a server that calls itself, or a `server.options` value the server does not have
/// (e.g. "movies-read-only": true against a storing server). Each names both sides.
std::vector<std::string> server_mismatches(const scenario& s, const target& t, const observed_server& server);

/// A warning when the scenario leaves a connection idle for at least the server's keep-alive idle timeout (/health
/// `idleTimeoutMs`): an open loop sends on each connection about every connections / rate seconds (the one idle
/// longest first), a closed or ramp user pauses up to its longest think time. The server then closes connections
/// mid-run, and the requests after that pay a reconnect or race the close. "" when they fit or /health does not say.
std::string idle_timeout_warning(const scenario& s, const observed_server& server);

/// A warning when the local port range cannot hold the scenario's connections to `t` together with the TIME_WAIT
/// sockets earlier trials left (/proc/net/sockstat), over the source addresses a loopback target spreads them on
/// (load::loopback_source); "" when they fit or the kernel's figures cannot be read.
std::string port_range_check(const scenario& s, const target& t);

}  // namespace execbench::load
