#pragma once
// `bench-report compare` in its two formats: judge/compare.hpp compares.

#include "execbench/report/judge/compare.hpp"
#include "execbench/report/page/page.hpp"

#include <string>

namespace execbench::report {

/// The comparison as a page: the rule, a row per suite, scenario, arm and metric, the counts and the warnings.
page compare_page(const comparison& c);

/// The comparison as a markdown report.
std::string compare_markdown(const comparison& c);

/// The comparison as one JSON object.
std::string compare_json(const comparison& c);

}  // namespace execbench::report
