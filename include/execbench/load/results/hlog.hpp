#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/record/run_record.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace execbench::load {

/// The interval log series of a run, each a tag `<arm>/<series>` (e.g. `fiber/latency`): the foreground's latency
/// (from the intended send time) and service time, and the background group's, when it has one.
inline constexpr std::string_view hlog_series[] = {"latency", "service", "background_latency", "background_service"};

/// A run's trials as an HdrHistogram interval log (docs/results-format.md): the header with the first trial's
/// start as StartTime and BaseTime, comments naming the run, then one line per second and series, in microseconds
/// (the max column in milliseconds). The warm-up is not in it. Fails only on an unencodable histogram.
result<std::string> format_hlog(const run_record& r);
/// Writes `format_hlog` to `file` (replacing it), creating its folder.
result<void> write_hlog(const run_record& r, const std::filesystem::path& file);

}  // namespace execbench::load
