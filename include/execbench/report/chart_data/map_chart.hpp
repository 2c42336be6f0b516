#pragma once
// The workload map's picture: which arm leads each cell, and the predicted boundary (chart_verdicts.py draws it).

#include "execbench/report/judge/workload_map.hpp"

#include <nlohmann/json.hpp>

namespace execbench::report {

/// The chart file of the map, relative to the suite's chart folder.
inline constexpr const char* map_chart_name = "workload-map.svg";

/// The data the chart script draws the map from ("map"): the grid, each cell's leaders and per-arm figures, and the
/// predicted boundary between the pool and the others.
nlohmann::json map_chart_data(const suite_data& s, const workload_map& m);

}  // namespace execbench::report
