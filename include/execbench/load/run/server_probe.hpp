#pragma once

#include "execbench/load/record/observed_server.hpp"
#include "execbench/stats/sampler.hpp"

#include <chrono>
#include <memory>
#include <map>
#include <optional>
#include <string>

#include <sys/types.h>

namespace execbench::load {


struct target;
/// Reads the server's /health (at the root of the base URL) and finds its pid: `server_pid` (--server-pid), else
/// the pid /health reports, else the process listening on the port (local targets only).
observed_server probe_server(const target& t, std::optional<pid_t> server_pid = std::nullopt);

/// The sampler of the server's process figures: /proc when its pid is known, its Prometheus /metrics when it is
/// remote (at most 5 Hz), none (nullptr) otherwise, as `server.sampling` says.
std::unique_ptr<stats::periodic_sampler> server_sampler(const observed_server& server, const target& t,
                                                        std::chrono::milliseconds period);

}  // namespace execbench::load
