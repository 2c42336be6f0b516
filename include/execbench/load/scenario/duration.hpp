#pragma once

#include "execbench/core/result.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace execbench::load {

/// Durations in the load generator: nanoseconds of the steady clock.
using duration = std::chrono::nanoseconds;

/// Parses "500ms", "3s", "2m", "1h", "250us", "1200ns" or a plain number of seconds ("1.5"); the error says what was
/// expected.
result<duration> parse_duration(std::string_view text);
/// Formats a duration for people: "500ms", "3s", "2m30s".
std::string format_duration(duration d);

}  // namespace execbench::load
