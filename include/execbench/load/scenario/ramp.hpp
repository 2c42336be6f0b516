#pragma once

#include "execbench/load/scenario/duration.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Built-in ramp profiles (the Loom/WebFlux study's spikes) or explicit stages.
enum class ramp_profile { stepped, smooth, sharp, stages };
/// The profile's name in scenario files: "stepped", "smooth", "sharp", "stages".
std::string_view to_string(ramp_profile p) noexcept;
/// The profile named `text`, or nothing.
std::optional<ramp_profile> parse_ramp_profile(std::string_view text) noexcept;

/// One ramp stage in k6's sense: move linearly from the previous target to `target` users over `length`
/// (a zero length is a jump).
struct ramp_stage {
    duration length{};
    std::uint32_t target = 0;
};

/// Target users of a ramp at `t` since its start (piecewise linear over `stages`).
double ramp_users_at(const std::vector<ramp_stage>& stages, duration t) noexcept;
/// Expands a built-in profile into stages for `users` peak users over `length`.
std::vector<ramp_stage> ramp_stages(ramp_profile profile, std::uint32_t users, duration length,
                                    std::uint32_t spikes = 10);

}  // namespace execbench::load
