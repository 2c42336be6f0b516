#pragma once

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

}  // namespace execbench::load
