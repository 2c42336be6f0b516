#include "execbench/report/winners.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace execbench::report {

const std::vector<metric_rule>& winner_metrics()
{
    static const std::vector<metric_rule> rules{
        {"requests_ok", "requests ok", better::higher},
        {"requests_error", "requests error", better::lower},
        {"requests_per_second", "req/s", better::higher},
        {"per_second_requests_p50", "req/s per second p50", better::higher},
        {"per_second_requests_p90", "req/s per second p90", better::higher},
        {"per_second_requests_max", "req/s per second max", better::higher},
        {"latency_millis_min", "latency min", better::lower},
        {"latency_millis_p50", "latency p50", better::lower},
        {"latency_millis_p90", "latency p90", better::lower},
        {"latency_millis_p99", "latency p99", better::lower},
        {"latency_millis_max", "latency max", better::lower},
        {"server_cpu_percent_avg", "CPU avg", better::lower},
        {"server_cpu_percent_max", "CPU max", better::lower},
        {"server_rss_mb_avg", "RSS avg", better::lower},
        {"server_rss_mb_max", "RSS max", better::lower},
        {"server_threads_max", "threads max", better::lower},
        {"server_voluntary_switches", "voluntary ctx switches", better::lower},
        {"server_involuntary_switches", "involuntary ctx switches", better::lower},
        {"server_sockets_max", "sockets max", better::higher},
    };
    return rules;
}

namespace {

/// Equal to three significant digits: closer than the measurement's own precision.
bool same(double a, double b)
{
    if (a == b)
        return true;
    auto scale = std::max(std::fabs(a), std::fabs(b));
    return std::fabs(a - b) < scale * 0.0005;
}

}  // namespace

std::string pick_winner(const std::vector<candidate>& candidates, better direction)
{
    if (candidates.empty())
        return {};
    auto before = [direction](const candidate& a, const candidate& b) {
        if (a.had_errors != b.had_errors)
            return !a.had_errors;
        return direction == better::higher ? a.value > b.value : a.value < b.value;
    };
    auto sorted = candidates;
    std::stable_sort(sorted.begin(), sorted.end(), before);
    if (sorted.size() > 1 && sorted[0].had_errors == sorted[1].had_errors && same(sorted[0].value, sorted[1].value))
        return {};
    return sorted[0].model;
}

std::vector<std::string> winners_table::ranking() const
{
    auto out = models;
    auto won = [this](const std::string& m) {
        auto it = wins.find(m);
        return it == wins.end() ? 0u : it->second;
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return won(a) > won(b); });
    return out;
}

double winners_table::share(std::string_view model) const
{
    auto total = decided + undecided;
    auto it = wins.find(std::string(model));
    if (total == 0 || it == wins.end())
        return 0;
    return double(it->second) / double(total);
}

winners_table rank(const std::vector<scenario_figures>& scenarios, const std::vector<std::string>& models)
{
    winners_table t;
    t.models = models;
    for (const auto& m : models)
        t.wins[m] = 0;
    for (const auto& sc : scenarios) {
        if (sc.values.empty())
            continue;
        t.scenarios.push_back(sc.scenario);
        for (const auto& rule : winner_metrics()) {
            std::vector<candidate> cs;
            for (const auto& m : models) {
                auto v = sc.values.find(m);
                if (v == sc.values.end())
                    continue;
                auto c = v->second.find(rule.column);
                if (c == v->second.end())
                    continue;
                auto e = sc.had_errors.find(m);
                cs.push_back({m, e != sc.had_errors.end() && e->second, c->second});
            }
            if (cs.empty())
                continue;
            auto w = pick_winner(cs, rule.direction);
            t.winner[sc.scenario][rule.column] = w;
            if (w.empty()) {
                ++t.undecided;
            } else {
                ++t.decided;
                ++t.wins[w];
            }
        }
    }
    return t;
}

}  // namespace execbench::report
