#pragma once

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/results.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// One row of a trials CSV: column → number (text columns read as 0; a figure the trial did not measure is absent).
using trial_row = load::figure_map;

/// Trials a verdict needs per arm; fewer give "too few trials".
inline constexpr unsigned min_verdict_trials = 3;

/// Server samples a trial needs before its server figures (CPU, RSS, threads, switches) mean anything.
inline constexpr unsigned min_server_samples = 3;

/// The trials that may take part in a verdict: every trial not marked generator-bound.
std::vector<trial_row> usable_trials(const std::vector<trial_row>& trials);

/// `column` of each trial; a trial without it gives nothing.
std::vector<double> values_of(const std::vector<trial_row>& trials, std::string_view column);

/// Server samples of a trial: its server_samples column (a row read from a file always has it: load/results/upgrade
/// estimates it for trials written before the column); 0, not sampled, for a row without it.
double server_samples(const trial_row& trial);

/// The share of a trial's planned requests (completed + unsent) that may fail or go unsent before the failures
/// outrank the measurements: one unsent request at the end of a 30,000-request window is no verdict on a model.
inline constexpr double failure_tolerance = 0.001;

/// The derived column of server CPU time per 1,000 completed requests, in CPU-seconds: CPU avg × wall time ÷ ok
/// requests. The CPU verdict ranks it rather than CPU %: an arm that serves five times fewer requests in the same
/// wall time does not use less CPU for the work.
inline constexpr std::string_view cpu_seconds_per_1k_requests = load::metric::server_cpu_seconds_per_1k_requests;

/// Adds the derived columns (cpu_seconds_per_1k_requests) to a trial row read from a trials CSV.
void add_derived_metrics(trial_row& trial);

/// An arm's failed and unsent requests over its trials, as the verdicts weigh them.
struct failure_record {
    unsigned trials = 0;
    unsigned trials_with_any = 0;  ///< trials with a failed or unsent request
    unsigned trials_over = 0;      ///< trials whose failed + unsent requests exceed failure_tolerance
    double worst_errors = 0;       ///< of the worst trial (by failed + unsent requests)
    double worst_unsent = 0;
    /// Failures beyond the tolerance in some trial: the arm did less of the work and ranks below every arm without.
    [[nodiscard]] bool over() const noexcept { return trials_over > 0; }
    [[nodiscard]] bool any() const noexcept { return trials_with_any > 0; }
};

/// The failures of `trials`. A trial without a requests_total column counts any failure as beyond the tolerance.
failure_record failures_of(const std::vector<trial_row>& trials);

/// True when any of `trials` had failed or unsent requests beyond failure_tolerance.
bool failed_or_unsent(const std::vector<trial_row>& trials);

}  // namespace execbench::report
