#pragma once
// A suite's capacity searches on the pages: the suite page's section and the headline's table
// (judge/capacity_figures.hpp concludes, word/capacity_text.hpp says a capacity).

#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace execbench::report {

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
