#pragma once

#include "execbench/report/read/suite_reader.hpp"

#include <optional>
#include <string>
#include <vector>

namespace execbench::report {

/// How a run's status reads on its page: "ok", "behind (unsent requests)", "**generator-bound** (not a result)"...
std::string status_text(const run_view& v);

/// The error classes of a run with their counts (medians of the trials), "503 71,400", in column order; whole
/// counts of zero are left out.
std::vector<std::string> error_classes(const run_view& v);

/// The requests an open loop could not send, as a percentage of those planned (answered, failed and unsent), "50";
/// "" when none went unsent.
std::string unsent_percent(const run_view& v);

/// What an open rate taken from each arm's capacity (`"rate": {"capacity_of": ...}`) was based on, as the run's
/// context recorded it, and how much of that capacity the arm served.
struct capacity_basis {
    std::string capacity_of;  ///< the capacity scenario
    double times = 0;         ///< the multiple offered
    double capacity_rps = 0;  ///< the arm's capacity
    std::string search;       ///< the search's run id
    /// Per trial, ascending: the median second's successful requests over the capacity (1: holds at capacity).
    std::vector<double> goodput_ratios;
};
/// Nullopt for a run whose rate was not taken from a capacity (or recorded before such rates existed).
std::optional<capacity_basis> capacity_basis_of(const run_view& v);

/// The median goodput ratio over the trials with their range, "1.02 (1.00–1.05)"; "–" without trials.
std::string goodput_text(const capacity_basis& b);

/// The figures of one scenario, one row per metric: label, then one cell per arm (markdown inline formatting).
std::vector<std::vector<std::string>> scenario_rows(const suite_data& s, const std::string& scenario);

}  // namespace execbench::report
