#include "execbench/report/word/capacity_text.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace execbench::report {

std::string capacity_cell(const load::capacity_result& r)
{
    using outcome = load::capacity_result::outcome;
    switch (r.what) {
    case outcome::measured:
        return load::rate_text(r.capacity_rps) + " req/s (95 % " + load::rate_text(r.low_rps) + "–" + load::rate_text(r.high_rps) + ")" +
               (load::bounding_connections(r)
                    ? ", bounded by the scenario's " + grouped(*load::bounding_connections(r)) + " connections"
                    : std::string{});
    case outcome::generator_bound:
        return r.capacity_rps > 0 ? "≥ " + load::rate_text(r.capacity_rps) + " req/s (generator-bound: a lower bound)"
                                  : "not measured (generator-bound from the first step)";
    case outcome::above_max: return "≥ " + load::rate_text(r.capacity_rps) + " req/s (the highest rate searched)";
    case outcome::below_min:
        return "below " + load::rate_text(r.steps.empty() ? 0 : r.steps.back().offered_rps) + " req/s (no step met the SLO)";
    case outcome::stopped: break;
    }
    return "not measured (" + r.stop_reason + ")";
}

/// "2.0k", "≥ 32k": a capacity short enough for a map cell.
std::string short_rps(const load::capacity_result& r)
{
    using outcome = load::capacity_result::outcome;
    auto v = r.capacity_rps;
    std::string n = v >= 10'000 ? fixed(v / 1000, 0) + "k" : v >= 1000 ? fixed(v / 1000, 1) + "k" : fixed(v, 0);
    switch (r.what) {
    case outcome::measured: return n;
    case outcome::generator_bound:
    case outcome::above_max: return "≥ " + n;
    case outcome::below_min: return "< " + load::rate_text(r.steps.empty() ? 0 : r.steps.back().offered_rps);
    case outcome::stopped: break;
    }
    return "–";
}

}  // namespace execbench::report
