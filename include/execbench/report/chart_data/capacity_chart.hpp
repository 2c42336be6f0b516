#pragma once
// A capacity scenario's chart: each arm's latency against the offered rate (chart_verdicts.py draws it).

#include "execbench/report/read/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace execbench::report {

/// The chart file of a capacity scenario, relative to the suite's chart folder: "capacity-<scenario>.svg".
std::string capacity_chart_name(const std::string& scenario);

/// The data the chart script draws a capacity scenario's latency-vs-throughput chart from ("capacity"): each arm's
/// steps grouped by offered rate in rate order (the median achieved req/s, p50 and p99 of the steps at that rate,
/// the range of p99, how many steps, all met the SLO, any generator-bound), its capacity or lower bound, and the
/// SLO's latency bounds.
nlohmann::json capacity_chart_data(const suite_data& s, const std::string& scenario);

}  // namespace execbench::report
