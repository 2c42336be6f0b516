#pragma once
// The index page's summary picture: every suite's p99 per scenario and arm (chart_verdicts.py draws it).

#include "execbench/report/read/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace execbench::report {

/// The chart file of the index page's summary picture, relative to the docs folder.
inline constexpr const char* summary_chart_name = "summary.svg";

/// The data of the index page's summary picture: per suite, per scenario and arm, the median p99 and whether the
/// arm's failed and unsent requests exceeded failure_tolerance (hatched); null when no suite has two arms' runs.
nlohmann::json summary_chart_data(const std::vector<suite_data>& suites);

}  // namespace execbench::report
