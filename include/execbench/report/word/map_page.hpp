#pragma once
// The workload map in words and pictures: judge/workload_map.hpp computes it.

#include "execbench/report/judge/workload_map.hpp"
#include "execbench/report/page/page.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace execbench::report {

/// The chart file of the map, relative to the suite's chart folder.
inline constexpr const char* map_chart_name = "workload-map.svg";

/// Why an arm's measured capacity in a cell parts from the prediction by more than map_agreement, or why nothing
/// predicts it, from its own search's steps; "" when they agree.
std::string why_apart(const map_cell& c, const map_arm& a, const workload_map& m);

/// The data the chart script draws the map from ("map"): the grid, each cell's leaders and per-arm figures, and the
/// predicted boundary between the pool and the others.
nlohmann::json map_chart_data(const suite_data& s, const workload_map& m);

/// The suite page's map section (the picture, measured / predicted per cell and arm, the reasons they part); nothing
/// when the suite holds no map.
page map_section(const suite_data& s, const report_paths& paths);

/// The README's and index's lines on the map of `s`: the picture and the one sentence it answers; nothing without a
/// map.
page map_headline(const suite_data& s, const report_paths& paths);

}  // namespace execbench::report
