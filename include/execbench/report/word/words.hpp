#pragma once
// Numbers as every page, table and chart label words them: one rounding, one grouping, one precision rule.

#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/read/trial_figures.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace execbench::report {

/// Milliseconds at a precision that suits their size.
std::string millis(double v);

/// The whole number a count is shown as (half to even): the one place medians of counts are rounded.
double whole(double v);

/// Integers with thin grouping: 12,345.
std::string count(double v);

/// A figure of a run as millis, count or `fixed` words it, or "–" when the run did not measure it (never 0).
std::string millis(std::optional<double> v);
std::string count(std::optional<double> v);
std::string fixed_or_dash(std::optional<double> v, int decimals);

/// A latency column of a run in milliseconds, or "–" when no request succeeded (there is no latency to show) or
/// the run did not measure it.
std::string latency(const run_view& v, std::string_view column);

/// An arm's failures in a few words, from the worst trial: "974 errors in 1 of 3 trials", "up to 40 unsent in 3 of 3
/// trials", or, within the tolerance, "≤1 unsent"; "" when there were none.
std::string failure_text(const failure_record& f);

}  // namespace execbench::report
