#include "execbench/report/judge/capacity_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace execbench::report {

bool passed_cleanly(const load::capacity_step& st)
{
    return st.met_slo && !st.generator_bound && st.achieved_rps > 0;
}

double cpu_micros_per_request(const load::capacity_step& st)
{
    return st.server_cpu_percent / 100.0 / st.achieved_rps * 1e6;
}

std::pair<double, double> capacity_interval(const load::capacity_result& r)
{
    constexpr double unbounded = std::numeric_limits<double>::infinity();
    using outcome = load::capacity_result::outcome;
    switch (r.what) {
    case outcome::measured: return {r.low_rps, r.high_rps};
    case outcome::generator_bound:
    case outcome::above_max: return {r.capacity_rps, unbounded};
    case outcome::below_min: return {0, r.steps.empty() ? 0 : r.steps.back().offered_rps};
    case outcome::stopped: break;
    }
    return {0, unbounded};  // unknown: beats nothing, beaten by nothing
}

const load::capacity_step* first_miss_above(const load::capacity_result& r)
{
    const load::capacity_step* out = nullptr;
    for (const auto& st : r.steps)
        if (!st.met_slo && !st.generator_bound && st.offered_rps > r.capacity_rps &&
            (!out || st.offered_rps < out->offered_rps))
            out = &st;
    return out;
}

std::optional<capacity_efficiency> common_rate_efficiency(const std::map<std::string, load::capacity_record>& arms)
{
    if (arms.empty())
        return std::nullopt;
    // Offered rates (rounded to whole req/s) each arm passed cleanly, with that step.
    std::map<std::string, std::map<long long, const load::capacity_step*>> passed;
    for (const auto& [arm, rec] : arms)
        for (const auto& st : rec.result.steps)
            if (passed_cleanly(st))
                passed[arm][std::llround(st.offered_rps)] = &st;
    if (passed.size() != arms.size())
        return std::nullopt;
    std::optional<long long> common;
    for (const auto& [rate, step] : passed.begin()->second) {
        // A copy: clang before 16 cannot capture a structured binding (the sanitizer build uses clang).
        auto r = rate;
        bool everywhere =
            std::all_of(passed.begin(), passed.end(), [&](const auto& p) { return p.second.count(r) > 0; });
        if (everywhere)
            common = r;  // the map is sorted: the last one is the highest
    }
    if (!common)
        return std::nullopt;
    capacity_efficiency e;
    e.rate = double(*common);
    for (const auto& [arm, steps] : passed) {
        const auto* st = steps.at(*common);
        e.cpu_micros[arm] = cpu_micros_per_request(*st);
        e.achieved_rps[arm] = st->achieved_rps;
    }
    return e;
}

}  // namespace execbench::report
