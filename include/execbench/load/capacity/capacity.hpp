#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/capacity_record.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/record/slo.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// The SLO a capacity search uses when none is given: p99 within a bound, no errors, no unsent requests.
inline constexpr std::string_view default_capacity_slo = "p99<=250ms,errors=0,unsent=0";

/// How the search walks the rate axis (docs/methodology.md, "Capacity").
struct capacity_options {
    double start_rps = 100;      ///< the first step's rate
    double min_rps = 1;          ///< below this the search gives up: "capacity < min"
    double max_rps = 1'000'000;  ///< above this it stops: "capacity >= max (not reached)"
    double growth = 2;           ///< the bracket's factor between steps
    double resolution = 0.05;    ///< bisection stops when hi / lo <= 1 + resolution
    unsigned trials = 3;         ///< bisections of the boundary, each giving one estimate
};

/// Checks the options: rates positive and ordered, growth > 1, 0 < resolution < growth - 1, trials >= 1.
result<void> validate(const capacity_options& o);


/// Runs one step at `rate`; `phase` labels it. An error ends the search (the step could not run at all).
using capacity_step_function = std::function<result<capacity_step>(double rate, const std::string& phase)>;


/// The search (docs/methodology.md, "Capacity"): brackets the SLO boundary by factors of `growth` from `start_rps`,
/// bisects it (geometric midpoints) to `resolution`, then bisects it `trials - 1` more times from a bracket widened
/// around the first estimate (each end re-checked), one estimate per bisection. The capacity is the median estimate
/// with a 95 % percentile-bootstrap interval whose top is raised by one resolution step (each estimate is the last
/// rate that passed; the boundary lies up to one step above it). A generator-bound step stops the search.
capacity_result search_capacity(const capacity_options& o, const capacity_step_function& step);

/// The 95 % interval of the search from its estimates, as search_capacity computes it.
void capacity_interval(capacity_result& r, double resolution);

/// A step from a one-trial run at one rate, judged against `gates`.
capacity_step step_from_run(const run_record& r, const std::vector<slo_gate>& gates);

/// How a capacity run's connections are set.
struct capacity_connections {
    std::optional<std::uint32_t> fixed;  ///< the same for every step; unset: they follow the rate
    double per_rps = 1;                  ///< following the rate: connections = ceil(rate * per_rps)
    /// "fixed 600 connections" or "connections follow the rate (1 per req/s)".
    [[nodiscard]] std::string describe() const;
    [[nodiscard]] std::uint32_t at(double rate) const noexcept;
};

/// Everything `run_capacity` needs beyond the scenario and run options.
struct capacity_plan {
    capacity_options search;
    capacity_connections connections;
    std::vector<slo_gate> gates;  ///< parsed `slo`
    std::string slo;              ///< as written, for the final line
    duration step_length = std::chrono::seconds{3};
    duration step_warmup = std::chrono::seconds{1};
    duration step_pause = std::chrono::milliseconds{500};
};

/// The plan of a capacity spec (a scenario's "capacity" merged with the command line): the defaults where unset;
/// the error names the field.
result<capacity_plan> make_capacity_plan(const capacity_spec& spec);
/// The plan in words for a banner: "capacity search: open-loop steps of 3s after a 1s warm-up each from 100 req/s,
/// x2 up to 1,000,000 req/s, 3 bisection(s) to 5 %, SLO p99<=250ms,errors=0,unsent=0; connections follow ...".
std::string describe(const capacity_plan& plan);

/// `s` as one capacity step: open shape at `rate` with the plan's connections, length and warm-up, one trial.
scenario step_scenario(const scenario& s, const capacity_plan& plan, double rate);

/// Runs one step when called; a `capacity_step_wrapper` decides when (bench-suite: in turn with the other arms).
using capacity_step_body = std::function<result<capacity_step>()>;
using capacity_step_wrapper = std::function<result<capacity_step>(const capacity_step_body&)>;

/// Runs the search against a live server on a target opened once (resolved and probed before the first step, not at
/// every step): every step is `load::run` of `step_scenario`, run through `wrap` when given. `on_step` (may be
/// empty) is called after each step, inside `wrap`, with the step and its run.
capacity_result run_capacity(const scenario& s, const run_options& options, const run_target& target,
                             const capacity_plan& plan,
                             const std::function<void(const capacity_step&, const run_record&)>& on_step = {},
                             const capacity_step_wrapper& wrap = {});


/// One step as a line of text for the terminal.
std::string format_step_line(const capacity_step& s);
/// One step as one line of JSON for `--format json` ("type": "capacity_step").
std::string format_step_json(const capacity_step& s);
/// The result as one JSON object (`--format json`): capacity_rps, capacity_rps_low, capacity_rps_high, the outcome,
/// the SLO, the connections and the estimates.
std::string format_capacity_json(const capacity_result& r, std::string_view slo, std::string_view connections);

}  // namespace execbench::load
