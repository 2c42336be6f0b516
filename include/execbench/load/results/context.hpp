#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/run_context.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::load {

/// A run's context (load/record/run_context.hpp) as one JSON object on one line, keys in sorted order: the only place
/// its keys are spelled, with `parse_context`.
std::string to_json(const run_context& c);
/// Reads a line `to_json` wrote, of this or an earlier version; fails only when the line is not a JSON object.
result<run_context> parse_context(std::string_view line);

}  // namespace execbench::load
