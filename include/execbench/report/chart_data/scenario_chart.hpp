#pragma once
// A scenario's chart on its suite page: a burst's latency distribution or a longer run's timeline (chart_runs.py
// draws both).

#include "execbench/report/read/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace execbench::report {

/// Runs shorter than this (and bursts) are charted as a latency distribution: a per-second timeline of them has
/// one or two points.
inline constexpr double burst_millis = 3000;

/// The chart file of a scenario, relative to the suite's chart folder.
std::string chart_name(const std::string& scenario);

/// The data the chart script draws a scenario's chart from: for bursts the merged latency spectrum, wall time and
/// req/s of each arm ("distribution"); otherwise the per-second series of each arm's charted trial ("timeline").
nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario);

}  // namespace execbench::report
