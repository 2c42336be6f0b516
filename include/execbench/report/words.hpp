#pragma once
// Numbers as every page, table and chart label words them: one rounding, one grouping, one precision rule.

#include "execbench/report/suite_reader.hpp"

#include <string>
#include <string_view>

namespace execbench::report {

/// Milliseconds at a precision that suits their size.
std::string millis(double v);

/// The whole number a count is shown as (half to even): the one place medians of counts are rounded.
double whole(double v);

/// Integers with thin grouping: 12,345.
std::string count(double v);

/// A latency column of a run in milliseconds, or "–" when no request succeeded (there is no latency to show).
std::string latency(const run_view& v, std::string_view column);

}  // namespace execbench::report
