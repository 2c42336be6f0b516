#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// One row of a trials CSV: column → number (text columns read as 0).
using trial_row = std::map<std::string, double>;

/// Trials a verdict needs per arm; fewer give "too few trials".
inline constexpr unsigned min_verdict_trials = 3;

/// Server samples a trial needs before its server figures (CPU, RSS, threads, switches) mean anything.
inline constexpr unsigned min_server_samples = 3;

/// The trials that may take part in a verdict: every trial not marked generator-bound.
std::vector<trial_row> usable_trials(const std::vector<trial_row>& trials);

/// `column` of each trial; a trial without it gives nothing.
std::vector<double> values_of(const std::vector<trial_row>& trials, std::string_view column);

/// Server samples of a trial: the server_samples column, or for older results without it an estimate from the
/// trial's wall time and bench-load's 10 Hz sampler (one sample at the start, one per 100 ms, one at the end).
double server_samples(const trial_row& trial);

/// True when any of `trials` had a failed request or, in an open shape, a request it could not send: such an arm
/// did less work, and ranks below every arm without.
bool failed_or_unsent(const std::vector<trial_row>& trials);

}  // namespace execbench::report
