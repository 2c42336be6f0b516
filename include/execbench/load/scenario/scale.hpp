#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstdint>
#include <string>

namespace execbench::load {

/// Share of each process's open-file limit that a fitted scale leaves free, beyond the spare descriptors the
/// estimate already counts: the estimate is about, not exact.
inline constexpr double fit_margin = 0.02;
/// Fitted factors are whole hundredths, so labels read "0.97", never "0.9731".
inline constexpr double fit_step = 0.01;
/// From this factor up a scaled run stands for the scenario for practical purposes; below it, it does not.
inline constexpr double representative_scale = 0.95;

/// `n` × `factor` rounded to the nearest integer, never below 1 unless `n` is 0.
std::uint64_t scale_count(std::uint64_t n, double factor) noexcept;

/// The scenario with every user, connection and rate figure multiplied by `factor` (0 < factor <= 1): closed and
/// open connections, open rates, ramp peaks and stage targets, burst requests and connections, and the same for
/// the background load. Durations, think times, delays and the request mix are unchanged. Factors compose (0.5 of
/// a 0.5 run is 0.25); `unscaled` keeps the figures as written. The error names `--scale`.
result<scenario> scale_scenario(scenario s, double factor, std::string decided_by = "--scale");

/// The scenario with its timeline multiplied by `factor` (0 < factor <= 1): the load's length (a built-in ramp's
/// stages follow it; explicit stages shrink each), the times requests join and leave the mix, and the same for the
/// background and its delay. Users, rates, think times, warm-up and timeouts are unchanged, so each user behaves as
/// written and only the ramp's slope and the run's length change: a compressed run, labelled like a scaled one.
/// Factors compose; `time_scale.unscaled` keeps the length as written. The error names `--time-scale`.
result<scenario> compress_scenario(scenario s, double factor);
/// "run in 0.2 of its time: 36s instead of 180s"; "" when the factor is 1.
std::string time_note(const scenario& s);
/// What a compressed run can tell, for pages and notes.
std::string time_meaning(double factor);

/// "20,000 peak users", "10,000 req/s on 10,000 connections", ... of a scenario's load (with its background).
std::string load_figures(const scenario& s);
/// "run at 0.97 scale: 19,400 peak users instead of 20,000"; "" when the factor is 1.
std::string scale_note(const scenario& s);
/// "0.97" (two decimals, or more when needed to tell it from 1 or 0).
std::string format_scale(double factor);
/// What a run at `factor` can tell, for pages and notes: the scenario for practical purposes, or not.
std::string scale_meaning(double factor);

/// What each process of a run may open: RLIMIT_NOFILE's hard limit (a soft limit can be raised that far, and
/// children inherit it), capped by fs.nr_open, which the kernel enforces whatever the limit says.
struct open_file_limits {
    std::uint64_t generator = 0;
    std::uint64_t server = 0;
    std::uint64_t downstream = 0;
};
/// The limits of this process (and so of the servers it starts).
open_file_limits current_open_file_limits();

/// How a scenario fits the open-file limits.
struct fit_result {
    double factor = 1;       ///< 1 (or the scenario's own factor) when it fits as it is
    std::string decided_by;  ///< "generator", "server" or "downstream"; "" when nothing had to give
    std::string reason;      ///< "the server needs about 30,064 open files, may open 20,000"; "" when it fits
};
/// The largest factor, in steps of fit_step and at most 1, at which `s` fits `limits`: as it is when every need is
/// within its limit; otherwise each need within its limit less fit_margin. `decided_by` names the process whose
/// limit set the factor. Fails (naming the need) when even fit_step does not fit.
result<fit_result> largest_fitting_scale(const scenario& s, const open_file_limits& limits);

/// The scenario a suite runs under the open-file limits: `s` when it fits; with `fit` scaled to the largest factor
/// that fits and labelled with the deciding limit; otherwise an error saying what is needed (and that
/// `--fit-to-limits` would run it here, at which scale). Raises this process's soft limit as far as the run needs.
result<scenario> fit_open_files(const scenario& s, bool fit);

}  // namespace execbench::load
