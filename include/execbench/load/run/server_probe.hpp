#pragma once

#include "execbench/stats/sampler.hpp"

#include <chrono>
#include <memory>
#include <map>
#include <optional>
#include <string>

#include <sys/types.h>

namespace execbench::load {

/// What is known about the server from its /health answer and from /proc.
struct observed_server {
    std::string model = "unknown";  ///< from /health "model"; "unknown" when absent
    std::string health_json;        ///< the /health body as received ("" when none)
    bool local = false;
    std::optional<pid_t> pid;
    std::string sampling = "none";  ///< "proc", "metrics" or "none"
    /// The /health fields as text (strings as they are, other values as JSON), in key order; empty when the body is
    /// no JSON object.
    [[nodiscard]] std::map<std::string, std::string> health_fields() const;
};

struct target;
/// Reads the server's /health (at the root of the base URL) and finds its pid: `server_pid` (--server-pid), else
/// the pid /health reports, else the process listening on the port (local targets only).
observed_server probe_server(const target& t, std::optional<pid_t> server_pid = std::nullopt);

/// The sampler of the server's process figures: /proc when its pid is known, its Prometheus /metrics when it is
/// remote (at most 5 Hz), none (nullptr) otherwise, as `server.sampling` says.
std::unique_ptr<stats::periodic_sampler> server_sampler(const observed_server& server, const target& t,
                                                        std::chrono::milliseconds period);

}  // namespace execbench::load
