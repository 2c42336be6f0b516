#pragma once

#include "execbench/load/results/capacity_results.hpp"
#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace execbench::report {

/// The chart file of a capacity scenario, relative to the suite's chart folder: "capacity-<scenario>.svg".
std::string capacity_chart_name(const std::string& scenario);

/// The data the chart script draws a capacity scenario's latency-vs-throughput chart from ("capacity"): each arm's
/// steps grouped by offered rate in rate order (the median achieved req/s, p50 and p99 of the steps at that rate,
/// the range of p99, how many steps, all met the SLO, any generator-bound), its capacity or lower bound, and the
/// SLO's latency bounds.
nlohmann::json capacity_chart_data(const suite_data& s, const std::string& scenario);

/// "1,960 req/s (95 % 1,910–2,000)", "≥ 3,200 req/s (generator-bound: a lower bound)", "below 1 req/s", ...
std::string capacity_cell(const load::capacity_result& r);

/// What the capacity searches ran after their first steps started (a context's start is its first step's):
/// "the times of each capacity search's first step; 78 step(s) in all followed, about 5m12s of warm-up and load",
/// from each step's warm-up and length in the contexts; "" when the suite has no capacity search.
std::string capacity_steps_text(const suite_data& s);

/// The suite page's capacity section: the table, each scenario's chart and the efficiency figure; nothing when the
/// suite has no capacity search.
page capacity_section(const suite_data& s, const report_paths& paths);

/// The headline's capacity table over `shown` suites (suite, scenario, one capacity per arm, SLO); nothing when
/// none has a capacity search.
page capacity_headline(const std::vector<const suite_data*>& shown, const std::vector<std::string>& arms,
                       const report_paths& paths);

}  // namespace execbench::report
