#pragma once

#include "execbench/report/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace execbench::report {

/// Runs shorter than this (and bursts) are charted as a latency distribution: a per-second timeline of them has
/// one or two points.
inline constexpr double burst_millis = 3000;

/// The chart file of a scenario, relative to the suite's chart folder.
std::string chart_name(const std::string& scenario);

/// The data the chart script draws a scenario's chart from: for bursts the merged latency spectrum, wall time and
/// req/s of each arm ("distribution"); otherwise the per-second series of each arm's charted trial ("timeline").
nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario);

/// The data of the suite's winners chart (per metric × scenario: the verdict of the winners rules, the runner-up and
/// the lead over it in percent), or null when no cell was ranked.
nlohmann::json winners_chart_data(const suite_data& s);

/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(std::string_view data);

}  // namespace execbench::report
