#pragma once
// The workload map on the pages: the suite page's section and the README's lines (judge/workload_map.hpp computes
// the map, chart_data/map_chart.hpp holds its picture's data).

#include "execbench/report/judge/workload_map.hpp"
#include "execbench/report/page/page.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <string>

namespace execbench::report {

/// Why an arm's measured capacity in a cell parts from the prediction by more than map_agreement, or why nothing
/// predicts it, from its own search's steps; "" when they agree.
std::string why_apart(const map_cell& c, const map_arm& a, const workload_map& m);

/// The suite page's map section (the picture, measured / predicted per cell and arm, the reasons they part); nothing
/// when the suite holds no map.
page map_section(const suite_data& s, const report_paths& paths);

/// The README's and index's lines on the map of `s`: the picture and the one sentence it answers; nothing without a
/// map.
page map_headline(const suite_data& s, const report_paths& paths);

}  // namespace execbench::report
