#pragma once
// A capacity search as data: its steps, what it found, and the labels its files carry (load/capacity searches,
// load/results files and reads it).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

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
    /// Requests each connection carried at once (its pipeline depth, or HTTP/2 streams): connections × pipeline in
    /// flight at most.
    std::uint32_t pipeline = 1;
    /// True when `capacity_rps` is a lower bound and must be labelled so.
    [[nodiscard]] bool lower_bound() const noexcept
    {
        return what == outcome::generator_bound || what == outcome::above_max;
    }
};

/// "measured", "generator_bound", "above_max", "below_min", "stopped".
std::string_view to_string(capacity_result::outcome o) noexcept;
/// The inverse of to_string; nullopt for anything else.
std::optional<capacity_result::outcome> parse_capacity_outcome(std::string_view text) noexcept;

/// A rate as capacity lines print it: whole requests per second, grouped ("1,960").
std::string rate_text(double rps);
/// The final line: "capacity: 1,960 req/s (95 % 1,910–2,000) at p99<=250ms,errors=0", or
/// "capacity >= 58,000 req/s (generator-bound) at ...".
std::string format_capacity_line(const capacity_result& r, std::string_view slo);

/// The connections that bounded a measured capacity, when they did: the first step above it that missed the SLO
/// left requests unsent while achieving at least 90 % of connections × pipeline / the capacity step's p50 latency,
/// so the scenario's connections, not the server, set the figure. Nullopt otherwise.
std::optional<std::uint32_t> bounding_connections(const capacity_result& r);

/// A search with what it ran against: the labels its files carry.
struct capacity_record {
    std::string run_id;
    std::string scenario;
    std::string arm;
    std::string model;
    std::string slo;
    std::string connections;  ///< capacity_connections::describe()
    capacity_result result;
};

}  // namespace execbench::load
