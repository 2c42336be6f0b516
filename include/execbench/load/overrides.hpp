#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// Command-line values that describe an ad-hoc run or override a scenario's; unset fields keep the scenario's.
struct overrides {
    std::optional<std::string> path;           ///< replaces the request mix with one request
    std::optional<std::string> method;
    std::optional<std::filesystem::path> body_file;
    std::vector<std::string> headers;          ///< "Name: value"
    std::optional<std::string> shape;
    std::optional<std::uint32_t> connections;
    std::optional<std::uint64_t> requests;
    std::optional<double> rate;
    std::optional<std::string> duration;
    std::optional<std::string> think;          ///< "2s" or "1s..3s"
    std::optional<std::uint32_t> trials;
    std::optional<std::string> warmup;
    std::optional<std::string> timeout;
    std::optional<std::string> pause;
    std::optional<double> scale;               ///< --scale: applied last, to the overridden figures (load/scale.hpp)
};

/// Applies `o` to `s` and validates the result; errors name the flag.
result<bool> apply_overrides(scenario& s, const overrides& o);

/// The scenario of an ad-hoc run (no --scenario): one GET of "/" in closed loop unless the flags say otherwise.
scenario ad_hoc_scenario();

}  // namespace execbench::load
