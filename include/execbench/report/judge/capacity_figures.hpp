#pragma once
// What a suite's capacity searches conclude, as figures: which steps count, where a capacity lies, and the CPU each
// arm spends per request at a rate all of them passed. suite_page/capacity_section.hpp and
// suite_page/map_section.hpp say it.

#include "execbench/load/results/capacity_results.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace execbench::report {

/// A step a figure can stand on: it met the SLO and the generator kept up.
bool passed_cleanly(const load::capacity_step& st);

/// Server CPU µs per successful request in a step: its CPU % is of one core, so (percent / 100) CPU-seconds per
/// second over achieved requests per second.
double cpu_micros_per_request(const load::capacity_step& st);

/// Where a search puts an arm's capacity: [low, high] req/s; a lower bound reaches to infinity, an unknown one is
/// [0, infinity] (it beats nothing and nothing beats it).
std::pair<double, double> capacity_interval(const load::capacity_result& r);

/// The first step above the capacity that missed the SLO (not generator-bound), for what the server did there.
const load::capacity_step* first_miss_above(const load::capacity_result& r);

/// Server CPU per request at one rate every arm ran and passed (the efficiency figure).
struct capacity_efficiency {
    double rate = 0;                             ///< offered req/s, the same for every arm
    std::map<std::string, double> cpu_micros;    ///< arm → server CPU µs per successful request
    std::map<std::string, double> achieved_rps;  ///< arm → what it answered at that rate
};

/// The highest offered rate at which every arm had a step that met the SLO and was not generator-bound (the bracket's
/// rates are the same for every arm), with each arm's CPU per request there; nothing when there is no such rate.
std::optional<capacity_efficiency> common_rate_efficiency(const std::map<std::string, load::capacity_record>& arms);

}  // namespace execbench::report
