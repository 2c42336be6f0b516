#include "execbench/load/record/capacity_record.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load {

std::string rate_text(double rps)
{
    return grouped(static_cast<std::uint64_t>(std::llround(std::max(0.0, rps))));
}

std::string_view to_string(capacity_result::outcome o) noexcept
{
    switch (o) {
    case capacity_result::outcome::measured: return "measured";
    case capacity_result::outcome::generator_bound: return "generator_bound";
    case capacity_result::outcome::above_max: return "above_max";
    case capacity_result::outcome::below_min: return "below_min";
    case capacity_result::outcome::stopped: return "stopped";
    }
    return "stopped";
}

std::optional<capacity_result::outcome> parse_capacity_outcome(std::string_view text) noexcept
{
    for (auto o :
         {capacity_result::outcome::measured, capacity_result::outcome::generator_bound,
          capacity_result::outcome::above_max, capacity_result::outcome::below_min, capacity_result::outcome::stopped})
        if (to_string(o) == text)
            return o;
    return std::nullopt;
}

std::optional<std::uint32_t> bounding_connections(const capacity_result& r)
{
    if (r.what != capacity_result::outcome::measured)
        return std::nullopt;
    const capacity_step* at = nullptr;     // the highest passing step at or below the capacity
    const capacity_step* above = nullptr;  // the lowest step above it that missed
    for (const auto& st : r.steps) {
        if (st.met_slo && st.offered_rps <= r.capacity_rps + 0.5 && (!at || st.offered_rps > at->offered_rps))
            at = &st;
        if (!st.met_slo && !st.generator_bound && st.offered_rps > r.capacity_rps &&
            (!above || st.offered_rps < above->offered_rps))
            above = &st;
    }
    if (!at || !above || above->unsent == 0 || at->p50_millis <= 0 || above->connections == 0)
        return std::nullopt;
    // Little's law holds for any closed set of connections, a saturated server's too: there the latency grows with
    // the rate until every connection waits. The scenario's connections are the bound only where the latency at the
    // capacity is still the unloaded one (a 100 ms wait stays 100 ms), not queueing inflated.
    double unloaded = at->p50_millis;
    for (const auto& st : r.steps)
        if (st.met_slo && st.p50_millis > 0)
            unloaded = std::min(unloaded, st.p50_millis);
    if (at->p50_millis > 2 * unloaded)
        return std::nullopt;
    // Little's law: each connection carries up to `pipeline` requests at once.
    auto ceiling = double(above->connections) * std::max<std::uint32_t>(1, r.pipeline) / (at->p50_millis / 1000);
    if (above->achieved_rps < 0.9 * ceiling)
        return std::nullopt;
    return above->connections;
}

std::string format_capacity_line(const capacity_result& r, std::string_view slo)
{
    auto at = " at " + std::string(slo);
    switch (r.what) {
    case capacity_result::outcome::measured:
        return "capacity: " + rate_text(r.capacity_rps) + " req/s (95 % " + rate_text(r.low_rps) + "\u2013" +
               rate_text(r.high_rps) + ")" +
               (bounding_connections(r)
                    ? ", bounded by its " + grouped(*bounding_connections(r)) + " connections (above it requests found none free)"
                    : std::string{}) +
               at;
    case capacity_result::outcome::generator_bound:
        if (r.capacity_rps <= 0)
            return "capacity: not measured (generator-bound from the first step)" + at;
        return "capacity >= " + rate_text(r.capacity_rps) +
               " req/s (generator-bound: a lower bound, not the "
               "server's capacity)" +
               at;
    case capacity_result::outcome::above_max:
        return "capacity >= " + rate_text(r.capacity_rps) + " req/s (the maximum rate searched: a lower bound)" + at;
    case capacity_result::outcome::below_min:
        return "capacity: below " + rate_text(r.steps.empty() ? 0 : r.steps.back().offered_rps) +
               " req/s (no step met the SLO)" + at;
    case capacity_result::outcome::stopped: break;
    }
    return "capacity: not measured (" + r.stop_reason + ")" + at;
}

}  // namespace execbench::load
