#pragma once

#include "execbench/report/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace execbench::report {

/// The chart file of a scenario, relative to the suite's chart folder.
std::string chart_name(const std::string& scenario);

/// The data the chart script draws a scenario's chart from: the per-second series of each model's charted trial.
nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario);

/// The data of the suite's winners chart, or null when no cell was ranked.
nlohmann::json winners_chart_data(const suite_data& s);

/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(std::string_view data);

}  // namespace execbench::report
