#pragma once
// A capacity search's outcome in words, as the capacity tables, the map's cells and the charts' labels all say it.

#include "execbench/load/record/capacity_record.hpp"

#include <string>

namespace execbench::report {

/// "1,960 req/s (95 % 1,910–2,000)", "≥ 3,200 req/s (generator-bound: a lower bound)", "below 1 req/s", ...
std::string capacity_cell(const load::capacity_result& r);

/// "2.0k", "≥ 32k": a capacity short enough for a map cell.
std::string short_rps(const load::capacity_result& r);

}  // namespace execbench::report
