#pragma once

#include "execbench/report/read/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

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

/// The chart file of the index page's summary picture, relative to the docs folder.
inline constexpr const char* summary_chart_name = "summary.svg";

/// The data of the index page's summary picture: per suite, per scenario and arm, the median p99 and whether the
/// arm's failed and unsent requests exceeded failure_tolerance (hatched); null when no suite has two arms' runs.
nlohmann::json summary_chart_data(const std::vector<suite_data>& suites);

/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(std::string_view data);

}  // namespace execbench::report
