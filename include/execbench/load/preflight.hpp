#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/runner.hpp"
#include "execbench/load/scenario.hpp"
#include "execbench/load/target.hpp"

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
std::vector<std::string> server_mismatches(const scenario& s, const target& t, const server_info& server);

}  // namespace execbench::load
