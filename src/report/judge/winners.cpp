#include "execbench/report/judge/winners.hpp"

#include "execbench/load/metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace execbench::report {

namespace metric = load::metric;

const std::vector<metric_rule>& winner_metrics()
{
    static const std::vector<metric_rule> rules = [] {
        std::vector<metric_rule> out;
        for (const auto& m : load::metric_table())
            if (m.ranked())
                out.push_back(m);
        return out;
    }();
    return rules;
}

const metric_rule& winner_metric(std::string_view column)
{
    const auto& m = load::metric_of(column);
    if (!m.ranked())
        throw std::out_of_range("not a ranked metric: " + std::string(column));
    return m;
}

std::string_view to_string(verdict v)
{
    switch (v) {
    case verdict::winner: return "winner";
    case verdict::shared: return "shared lead";
    case verdict::tie: return "tie";
    case verdict::too_few_trials: return "too few trials";
    case verdict::not_sampled: return "not sampled";
    case verdict::not_ranked: return "not ranked";
    case verdict::unequal_work: return "unequal work";
    }
    return "?";
}

namespace {

/// The per-second figures count whole seconds only, so a trial under two seconds has a single bucket.
constexpr double two_buckets_millis = 2000;

bool any_trial(const std::vector<trial_row>& trials, auto predicate)
{
    return std::any_of(trials.begin(), trials.end(), predicate);
}

/// Every trial counted its successful requests and none had one (a server that refused every request).
bool answered_nothing(const std::vector<trial_row>& trials)
{
    auto ok = values_of(trials, metric::requests_ok);
    return ok.size() == trials.size() && std::all_of(ok.begin(), ok.end(), [](double v) { return v == 0; });
}

/// Which of a pair ranks higher: failures first, then the interval, in the metric's direction.
std::string better_of(const pair_verdict& p, bool first_failed, bool second_failed, better direction)
{
    if (first_failed != second_failed)
        return first_failed ? p.second : p.first;
    if (!p.ratio.clears(tie_margin))
        return {};
    bool first_higher = p.ratio.low > 1;
    return first_higher == (direction == better::higher) ? p.first : p.second;
}

}  // namespace

namespace {

using usable_trials_of = std::map<std::string, std::vector<trial_row>>;

/// Why the arms' trials cannot rank on this metric at all, or nothing when they can.
std::optional<verdict> unrankable(const std::vector<std::string>& names, const usable_trials_of& usable,
                                  const metric_rule& rule)
{
    for (const auto& a : names) {
        const auto& ts = usable.at(a);
        if (ts.size() < min_verdict_trials)
            return verdict::too_few_trials;
        if (rule.source == metric_source::per_second && any_trial(ts, [](const trial_row& t) {
                auto wall = t.find(metric::wall_millis);
                return wall != t.end() && wall->second < two_buckets_millis;
            }))
            return verdict::not_ranked;
        if ((rule.source == metric_source::server_sampled || rule.source == metric_source::server_equal_work) &&
            any_trial(ts, [](const trial_row& t) { return server_samples(t) < min_server_samples; }))
            return verdict::not_sampled;
    }
    if (rule.source == metric_source::server_equal_work)
        for (std::size_t i = 0; i < names.size(); ++i)
            for (std::size_t j = i + 1; j < names.size(); ++j) {
                auto a = values_of(usable.at(names[i]), metric::requests_ok);
                auto b = values_of(usable.at(names[j]), metric::requests_ok);
                if (!a.empty() && !b.empty() && stats::ratio_of_medians(a, b).clears(tie_margin))
                    return verdict::unequal_work;
            }
    return std::nullopt;
}

/// Every pair of arms judged (failures first, then the interval); returns how many pairs each arm ranks higher in.
std::map<std::string, unsigned> judge_pairs(cell_verdict& c, const std::vector<std::string>& names,
                                            const usable_trials_of& usable, const metric_rule& rule)
{
    auto over = [&](const std::string& a) {
        auto it = c.failures.find(a);
        return it != c.failures.end() && it->second.over();
    };
    std::map<std::string, unsigned> above;
    for (std::size_t i = 0; i < names.size(); ++i)
        for (std::size_t j = i + 1; j < names.size(); ++j) {
            pair_verdict p;
            p.first = names[i];
            p.second = names[j];
            const auto first = values_of(usable.at(p.first), rule.column);
            const auto second = values_of(usable.at(p.second), rule.column);
            p.ratio = stats::ratio_of_medians(first, second);
            // 0 against a figure, or no figure (an arm that answered nothing has no CPU per request), is no ratio.
            p.measured = !first.empty() && !second.empty() && std::isfinite(p.ratio.ratio) && p.ratio.ratio > 0;
            bool fa = over(p.first);
            bool fb = over(p.second);
            p.by_failures = fa != fb;
            p.better = better_of(p, fa, fb, rule.direction);
            if (p.by_failures)
                p.failure = c.failures.at(fa ? p.first : p.second);
            if (!p.better.empty())
                ++above[p.better];
            c.pairs.push_back(std::move(p));
        }
    return above;
}

/// The winner, the arms that lead together, or a tie, from the pairs.
void find_leaders(cell_verdict& c, const std::vector<std::string>& names, std::map<std::string, unsigned>& above)
{
    c.kind = verdict::tie;
    for (const auto& a : names)
        if (names.size() > 1 && above[a] == names.size() - 1) {
            c.kind = verdict::winner;
            c.winner = a;
            c.leaders = {a};
        }
    if (c.kind == verdict::winner)
        return;
    // No single winner: the arms no other arm beats lead together when they beat every remaining arm (io-600's p99:
    // fiber and loop tie, both 3x ahead of pool). Calling that a plain tie would hide the arm that lost.
    std::vector<std::string> top;
    for (const auto& a : names)
        if (std::none_of(c.pairs.begin(), c.pairs.end(), [&](const pair_verdict& p) {
                return (p.first == a || p.second == a) && !p.better.empty() && p.better != a;
            }))
            top.push_back(a);
    if (top.size() >= 2 && top.size() < names.size() && std::all_of(top.begin(), top.end(), [&](const std::string& a) {
            return above[a] == names.size() - top.size();
        })) {
        c.kind = verdict::shared;
        c.leaders = std::move(top);
    }
}

}  // namespace

cell_verdict judge(const std::map<std::string, arm_trials>& arms, const std::vector<std::string>& order,
                   const metric_rule& rule)
{
    cell_verdict c;
    if (rule.source == metric_source::client_set) {
        c.kind = verdict::not_ranked;
        return c;
    }
    std::vector<std::string> names;
    usable_trials_of usable;
    for (const auto& a : order)
        if (auto it = arms.find(a); it != arms.end()) {
            names.push_back(a);
            usable[a] = usable_trials(it->second.trials);
        }
    if (auto why = unrankable(names, usable, rule)) {
        c.kind = *why;
        return c;
    }
    for (const auto& a : names)
        if (auto f = failures_of(usable[a]); f.any())
            c.failures[a] = f;
    auto above = judge_pairs(c, names, usable, rule);
    find_leaders(c, names, above);
    return c;
}

std::vector<std::string> cell_verdict::demoted() const
{
    std::vector<std::string> out;
    auto add = [&](const std::string& a) {
        if (std::find(out.begin(), out.end(), a) == out.end())
            out.push_back(a);
    };
    // In display order: the pairs are.
    for (const auto& p : pairs)
        if (p.by_failures && std::find(leaders.begin(), leaders.end(), p.better) != leaders.end())
            add(p.better == p.first ? p.second : p.first);
    return out;
}

bool cell_verdict::by_failures() const
{
    return !demoted().empty();
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

double winners_table::share(std::string_view arm) const
{
    auto it = wins.find(std::string(arm));
    if (decided == 0 || it == wins.end())
        return 0;
    return double(it->second) / double(decided);
}

winners_table rank(const std::vector<scenario_figures>& scenarios, const std::vector<std::string>& models)
{
    winners_table t;
    t.models = models;
    t.single_arm = models.size() < 2;
    for (const auto& m : models) {
        t.wins[m] = 0;
        t.shared_leads[m] = 0;
        t.wins_by_failures[m] = 0;
    }
    for (const auto& sc : scenarios) {
        if (sc.arms.size() < 2)
            continue;
        t.scenarios.push_back(sc.scenario);
        for (const auto& rule : winner_metrics()) {
            // A figure an arm's trials lack is not measured (the upgrade leaves absent what an earlier schema did
            // not record): no cell at all. An arm that answered nothing has no figure per request, yet the others'
            // are measured: it takes part, ranked below them by its failures.
            auto measured = [&](const auto& a) { return !values_of(a.second.trials, rule.column).empty(); };
            bool present = std::all_of(sc.arms.begin(), sc.arms.end(),
                                       [&](const auto& a) {
                                           return a.second.trials.empty() || measured(a) ||
                                                  answered_nothing(a.second.trials);
                                       }) &&
                           !std::all_of(sc.arms.begin(), sc.arms.end(),
                                        [&](const auto& a) { return !a.second.trials.empty() && !measured(a); });
            if (!present)
                continue;
            auto c = judge(sc.arms, models, rule);
            switch (c.kind) {
            case verdict::winner:
                ++t.decided;
                ++t.wins[c.winner];
                if (c.by_failures()) {
                    ++t.decided_by_failures;
                    ++t.wins_by_failures[c.winner];
                }
                break;
            case verdict::shared:
                ++t.shared;
                for (const auto& a : c.leaders)
                    ++t.shared_leads[a];
                break;
            case verdict::tie: ++t.ties; break;
            case verdict::too_few_trials: ++t.too_few_trials; break;
            case verdict::not_sampled: ++t.not_sampled; break;
            case verdict::not_ranked: ++t.not_ranked; break;
            case verdict::unequal_work: ++t.unequal_work; break;
            }
            t.cells[sc.scenario][rule.column] = std::move(c);
        }
    }
    return t;
}

std::vector<scenario_figures> figures_of(const suite_data& s)
{
    std::vector<scenario_figures> out;
    for (const auto& sc : s.scenarios) {
        scenario_figures f;
        f.scenario = sc;
        auto runs = s.runs.find(sc);
        // Runs at different scales measured different loads: no verdict between them.
        bool comparable = scales_of(s, sc).size() <= 1;
        for (const auto& m : s.models) {
            if (runs == s.runs.end() || !comparable)
                break;
            auto v = runs->second.find(m);
            // Figures that are the generator's (or await re-measurement) take part in no verdict.
            if (v != runs->second.end() && v->second.ran() && v->second.not_a_result().empty())
                f.arms[m].trials = v->second.trials;
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace execbench::report
