#pragma once

#include "execbench/load/record/run_record.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// Named per-trial metrics in CSV column order (docs/results-format.md documents each).
std::vector<std::pair<std::string, double>> trial_metrics(const trial_result& t);
/// Metrics whose spread decides the noisy flag.
const std::vector<std::string_view>& noise_metrics();

/// The bounds of the generator check (docs/methodology.md states them).
inline constexpr double generator_cpu_bound_percent = 90;  ///< of the cores the generator may use
inline constexpr double generator_lag_bound_millis = 10;   ///< p99 lateness of the open-loop send timer
/// consecutive seconds at the CPU bound that mark a trial whose average stays under it (a ramp's peak)
inline constexpr std::size_t generator_saturated_seconds = 3;

/// Why a trial was generator-bound, or "" when it was not: its CPU at >= 90 % of min(threads, CPUs it may use) over
/// the trial or in 3 consecutive seconds, or the open-loop send timer's p99 lateness beyond 10 ms; unsent requests
/// of such a trial are the generator's.
std::string generator_bound_reason(const trial_result& t, unsigned threads, unsigned load_cpus);

/// Fills `r.summary` from `r.trials`: median, min and max of every metric, noisy when the range of a
/// noise metric exceeds 20 % of its median (only with two or more trials). Generator-bound trials are left out
/// unless every trial is.
void summarize_trials(run_record& r);

}  // namespace execbench::load
