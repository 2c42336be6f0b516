#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/run/slo.hpp"
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

/// What one step (one short open-loop trial at one rate) measured and how it fared against the SLO.
struct capacity_step {
    unsigned index = 0;       ///< 1-based, in the order run
    std::string phase;        ///< "bracket", "bisect 1", "bisect 2", ...
    double offered_rps = 0;   ///< the open loop's rate
    double achieved_rps = 0;  ///< successful responses per second of the step's length (its issuing time)
    std::uint32_t connections = 0;
    double p50_millis = 0;
    double p90_millis = 0;
    double p99_millis = 0;
    std::uint64_t errors = 0;
    std::uint64_t unsent = 0;
    double server_cpu_percent = 0;  ///< average over the step (100 = one core)
    double server_rss_mb = 0;       ///< the step's peak
    bool met_slo = false;
    bool generator_bound = false;
    std::string note;  ///< the broken gates, or why the step was generator-bound
};

/// Runs one step at `rate`; `phase` labels it. An error ends the search (the step could not run at all).
using capacity_step_function = std::function<result<capacity_step>(double rate, const std::string& phase)>;

/// What the search found.
struct capacity_result {
    enum class outcome {
        measured,         ///< a capacity with its interval
        generator_bound,  ///< a step was generator-bound: `capacity_rps` is a lower bound only
        above_max,        ///< every step up to max_rps met the SLO: a lower bound only
        below_min,        ///< no step down to min_rps met the SLO
        stopped,          ///< the step function failed or the run was stopped
    };
    outcome what = outcome::measured;
    double capacity_rps = 0;  ///< the median estimate, or the lower bound (generator_bound, above_max)
    double low_rps = 0;       ///< 95 % interval (outcome measured only)
    double high_rps = 0;
    std::vector<double> estimates;  ///< one per bisection: the highest rate that met the SLO
    std::vector<capacity_step> steps;
    std::string stop_reason;  ///< outcome stopped: why
    std::uint32_t pipeline = 1;  ///< requests each connection carried at once: connections × pipeline in flight at most
    /// True when `capacity_rps` is a lower bound and must be labelled so.
    [[nodiscard]] bool lower_bound() const noexcept
    {
        return what == outcome::generator_bound || what == outcome::above_max;
    }
};

/// The search (docs/methodology.md, "Capacity"): brackets the SLO boundary by factors of `growth` from `start_rps`,
/// bisects it (geometric midpoints) to `resolution`, then bisects it `trials - 1` more times from a bracket widened
/// around the first estimate (each end re-checked), one estimate per bisection. The capacity is the median estimate
/// with a 95 % percentile-bootstrap interval whose top is raised by one resolution step (each estimate is the last
/// rate that passed; the boundary lies up to one step above it). A generator-bound step stops the search.
capacity_result search_capacity(const capacity_options& o, const capacity_step_function& step);

/// The 95 % interval of the search from its estimates, as search_capacity computes it.
void capacity_interval(capacity_result& r, double resolution);

/// A step from a one-trial run at one rate, judged against `gates`.
capacity_step step_from_run(const run_result& r, const std::vector<slo_gate>& gates);

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
                             const std::function<void(const capacity_step&, const run_result&)>& on_step = {},
                             const capacity_step_wrapper& wrap = {});

/// The final line: "capacity: 1,960 req/s (95 % 1,910–2,000) at p99<=250ms,errors=0", or
/// "capacity >= 58,000 req/s (generator-bound) at ...".
std::string format_capacity_line(const capacity_result& r, std::string_view slo);

/// The connections that bounded a measured capacity, when they did: the first step above it that missed the SLO
/// left requests unsent while achieving at least 90 % of connections × pipeline / the capacity step's p50 latency,
/// so the scenario's connections, not the server, set the figure. Nullopt otherwise.
std::optional<std::uint32_t> bounding_connections(const capacity_result& r);
/// One step as a line of text for the terminal.
std::string format_step_line(const capacity_step& s);
/// One step as one line of JSON for `--format json` ("type": "capacity_step").
std::string format_step_json(const capacity_step& s);
/// The result as one JSON object (`--format json`): capacity_rps, capacity_rps_low, capacity_rps_high, the outcome,
/// the SLO, the connections and the estimates.
std::string format_capacity_json(const capacity_result& r, std::string_view slo, std::string_view connections);
/// "measured", "generator_bound", "above_max", "below_min", "stopped".
std::string_view to_string(capacity_result::outcome o) noexcept;
/// The inverse of to_string; nullopt for anything else.
std::optional<capacity_result::outcome> parse_capacity_outcome(std::string_view text) noexcept;

}  // namespace execbench::load
