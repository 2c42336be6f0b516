#include "execbench/report/winners.hpp"

#include "execbench/load/run/metric_names.hpp"

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

cell_verdict judge(const std::map<std::string, arm_trials>& arms, const std::vector<std::string>& order,
                   const metric_rule& rule)
{
    cell_verdict c;
    if (rule.source == metric_source::client_set) {
        c.kind = verdict::not_ranked;
        return c;
    }
    std::vector<std::string> names;
    std::map<std::string, std::vector<trial_row>> usable;
    for (const auto& a : order)
        if (auto it = arms.find(a); it != arms.end()) {
            names.push_back(a);
            usable[a] = usable_trials(it->second.trials);
        }
    for (const auto& a : names) {
        const auto& ts = usable[a];
        if (ts.size() < min_verdict_trials) {
            c.kind = verdict::too_few_trials;
            return c;
        }
        if (rule.source == metric_source::per_second && any_trial(ts, [](const trial_row& t) {
                auto wall = t.find(std::string(metric::wall_millis));
                return wall != t.end() && wall->second < two_buckets_millis;
            })) {
            c.kind = verdict::not_ranked;
            return c;
        }
        if ((rule.source == metric_source::server_sampled || rule.source == metric_source::server_equal_work) &&
            any_trial(ts, [](const trial_row& t) { return server_samples(t) < min_server_samples; })) {
            c.kind = verdict::not_sampled;
            return c;
        }
    }
    if (rule.source == metric_source::server_equal_work)
        for (std::size_t i = 0; i < names.size(); ++i)
            for (std::size_t j = i + 1; j < names.size(); ++j) {
                auto a = values_of(usable[names[i]], metric::requests_ok);
                auto b = values_of(usable[names[j]], metric::requests_ok);
                if (!a.empty() && !b.empty() && stats::ratio_of_medians(a, b).clears(tie_margin)) {
                    c.kind = verdict::unequal_work;
                    return c;
                }
            }
    for (const auto& a : names)
        if (auto f = failures_of(usable[a]); f.any())
            c.failures[a] = f;
    auto over = [&](const std::string& a) {
        auto it = c.failures.find(a);
        return it != c.failures.end() && it->second.over();
    };
    std::map<std::string, unsigned> above;  // arm → pairs it ranks higher in
    for (std::size_t i = 0; i < names.size(); ++i)
        for (std::size_t j = i + 1; j < names.size(); ++j) {
            pair_verdict p;
            p.first = names[i];
            p.second = names[j];
            auto a = values_of(usable[p.first], rule.column);
            auto b = values_of(usable[p.second], rule.column);
            p.ratio = stats::ratio_of_medians(a, b);
            bool fa = over(p.first);
            bool fb = over(p.second);
            p.by_failures = fa != fb;
            p.better = better_of(p, fa, fb, rule.direction);
            if (p.by_failures)
                p.failure = failure_text(c.failures.at(fa ? p.first : p.second));
            if (!p.better.empty())
                ++above[p.better];
            c.pairs.push_back(std::move(p));
        }
    c.kind = verdict::tie;
    for (const auto& a : names)
        if (names.size() > 1 && above[a] == names.size() - 1) {
            c.kind = verdict::winner;
            c.winner = a;
            c.leaders = {a};
        }
    if (c.kind == verdict::winner)
        return c;
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

std::string cell_text(const cell_verdict& c)
{
    if (c.kind != verdict::winner && c.kind != verdict::shared)
        return std::string(to_string(c.kind));
    std::string text;
    for (const auto& a : c.leaders)
        text += (text.empty() ? "" : " = ") + a;
    return text;
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
            // A column missing from an arm's results (older files) is no cell at all.
            bool present = std::all_of(sc.arms.begin(), sc.arms.end(), [&](const auto& a) {
                return a.second.trials.empty() || !values_of(a.second.trials, rule.column).empty();
            });
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

namespace {

/// A factor at three significant digits, so a decided 1.004× does not print as a tie-looking 1.00×.
std::string factor(double v)
{
    if (std::isinf(v))
        return "∞";
    char buf[32];
    int decimals = v < 1.1 ? 3 : v < 10 ? 2 : v < 100 ? 1 : 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string factor_with_interval(double f, double low, double high)
{
    return factor(f) + "× (" + factor(low) + "–" + factor(high) + ")";
}

std::string percent(double share)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f %%", 100.0 * share);
    return buf;
}

}  // namespace

namespace {

/// A decided pair's factor with its interval, stated as ≥ 1 in the better arm's favour, as hyperfine does.
std::string in_favour(const pair_verdict& p, const metric_rule& rule)
{
    const auto& r = p.ratio;
    bool invert = (p.better == p.first) == (rule.direction == better::lower);
    auto inv = [](double x) { return x == 0 ? std::numeric_limits<double>::infinity() : 1 / x; };
    return invert ? factor_with_interval(inv(r.ratio), inv(r.high), inv(r.low))
                  : factor_with_interval(r.ratio, r.low, r.high);
}

/// failure_tolerance as the pages state it: "0.1 %".
std::string tolerance_text()
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%g %%", failure_tolerance * 100);
    return buf;
}

std::string tie_text(const pair_verdict& p)
{
    return "tie: " + p.first + " / " + p.second + " " + factor_with_interval(p.ratio.ratio, p.ratio.low, p.ratio.high);
}

const std::string& worse_of(const pair_verdict& p)
{
    return p.better == p.first ? p.second : p.first;
}

/// How far apart a pair is, either way round: 2× and 0.5× are equally far. A pair decided by failures is farthest.
double distance(const pair_verdict& p)
{
    if (p.by_failures)
        return std::numeric_limits<double>::infinity();
    double r = p.ratio.ratio > 0 ? p.ratio.ratio : 1.0;
    return std::max(r, 1.0 / r);
}

}  // namespace

std::string describe(const pair_verdict& p, const metric_rule& rule)
{
    if (p.better.empty())
        return tie_text(p);
    const auto& worse = worse_of(p);
    if (p.by_failures)
        return p.better + " above " + worse + " (" + worse + ": " + p.failure + ", over " + tolerance_text() +
               " of its requests; " + p.first + " / " + p.second + " " +
               factor_with_interval(p.ratio.ratio, p.ratio.low, p.ratio.high) + ")";
    return p.better + ": " + in_favour(p, rule) + (rule.direction == better::lower ? " lower " : " higher ") +
           rule.label + " than " + worse;
}

const pair_verdict* deciding_pair(const cell_verdict& c, const metric_rule& rule)
{
    const pair_verdict* best = nullptr;
    auto closer = [&](const pair_verdict& p) { return !best || distance(p) < distance(*best); };
    if (c.kind == verdict::winner || c.kind == verdict::shared) {
        // The lead over the nearest arm behind: a leader's decided pair with an arm that is not a leader.
        auto leads = [&](const std::string& a) {
            return std::find(c.leaders.begin(), c.leaders.end(), a) != c.leaders.end();
        };
        for (const auto& p : c.pairs)
            if (!p.better.empty() && leads(p.better) && !leads(worse_of(p)) && closer(p))
                best = &p;
        return best;
    }
    if (c.kind != verdict::tie || c.pairs.empty())
        return nullptr;
    // The arm ahead of the most others (by the verdict where a pair has one, else by its median).
    std::map<std::string, unsigned> ahead;
    for (const auto& p : c.pairs) {
        bool first_lower = p.ratio.ratio < 1;
        bool first_ahead = !p.better.empty() ? p.better == p.first : first_lower == (rule.direction == better::lower);
        ++ahead[first_ahead ? p.first : p.second];
    }
    std::string top;
    unsigned most = 0;
    for (const auto& p : c.pairs)
        for (const auto* arm : {&p.first, &p.second})
            if (ahead[*arm] > most || top.empty()) {
                most = ahead[*arm];
                top = *arm;
            }
    for (const auto& p : c.pairs)
        if (p.better.empty() && (p.first == top || p.second == top) && closer(p))
            best = &p;
    if (!best)
        for (const auto& p : c.pairs)
            if (p.better.empty() && closer(p))
                best = &p;
    return best;
}

std::string verdict_line(const cell_verdict& c, const metric_rule& rule)
{
    const auto* p = deciding_pair(c, rule);
    if (!p)
        return std::string(to_string(c.kind));
    if (c.kind == verdict::tie)
        return tie_text(*p);
    auto lead = cell_text(c);
    // Every arm the failures ranked down, with the figure that did it (the worst trial's).
    std::string failed;
    for (const auto& a : c.demoted())
        failed += (failed.empty() ? "" : ", ") + a + " " + failure_text(c.failures.at(a));
    failed = failed.empty() ? failed : "failures over " + tolerance_text() + " of requests: " + failed;
    if (p->by_failures)
        return lead + " (" + failed + ")";
    return lead + ": " + in_favour(*p, rule) + (rule.direction == better::lower ? " lower" : " higher") + " than " +
           worse_of(*p) + (failed.empty() ? "" : "; " + failed);
}

std::string share_text(const winners_table& t)
{
    if (t.single_arm)
        return "n/a (one arm)";
    std::string out;
    if (t.decided == 0) {
        out = "no decided cells";
    } else {
        for (const auto& m : t.ranking())
            out += (out.empty() ? "" : ", ") + m + " " + percent(t.share(m));
        out += " of " + std::to_string(t.decided) + " decided cells";
        if (t.decided_by_failures > 0)
            out += " (" + std::to_string(t.decided_by_failures) + " of them with an arm ranked down for failures)";
    }
    if (t.shared > 0)
        out += "; " + std::to_string(t.shared) + (t.shared == 1 ? " shared lead" : " shared leads");
    out += "; " + std::to_string(t.ties) + (t.ties == 1 ? " tie" : " ties");
    if (t.too_few_trials > 0)
        out += ", " + std::to_string(t.too_few_trials) + " too few trials";
    if (t.not_sampled > 0)
        out += ", " + std::to_string(t.not_sampled) + " not sampled";
    if (t.unequal_work > 0)
        out += ", " + std::to_string(t.unequal_work) + " unequal work";
    return out;
}

std::string winners_markdown(const suite_data& s, const winners_table& w, std::string_view methodology_link)
{
    std::ostringstream md;
    md << "## Winners\n\n";
    md << "Per scenario, metric and pair of arms: the ratio of the medians over the trials with a 95 % percentile "
          "bootstrap interval (method and limits in [methodology]("
       << methodology_link
       << "#statistics)). An arm wins a cell only when it ranks above every other arm: an arm whose failed and unsent "
          "requests exceed "
       << tolerance_text()
       << " of a trial's requests ranks below every arm without (the cells name the arm and its worst trial's "
          "count); otherwise a pair is decided only where the whole interval lies more than "
       << tie_margin * 100
       << " % from 1 (the A/A noise floor: a smaller difference is a tie, however consistent). Arms that tie with each "
          "other and each rank above every remaining arm **share the lead** (shown as `fiber = loop`); anything else "
          "is a **tie**. No verdict: *too few trials* (an arm with fewer than "
       << min_verdict_trials << " trials that are not generator-bound), *not sampled* (a trial with fewer than "
       << min_server_samples
       << " server samples: the CPU, memory, thread and switch figures of a short burst), *not ranked* (sockets, "
          "set by the load generator's connections; per-second req/s of a trial shorter than 2 s, one bucket), "
          "*unequal work* (CPU max, memory and context switches, which grow with the work done, where the arms' "
          "requests ok differ by more than the noise floor). CPU is ranked as CPU-seconds per 1,000 completed "
          "requests (CPU avg × wall time ÷ requests ok), so an arm that serves fewer requests does not win it by "
          "doing less. Requests ok, requests per second and sockets are higher-is-better, everything else "
          "lower-is-better, as "
          "in the Loom/WebFlux study. Arms that failed or did not run take no part.\n\n";
    if (w.single_arm) {
        md << "n/a: a suite with one arm has no winners.\n\n";
        return md.str();
    }
    md << "| arm | wins | of which by failures | share of decided cells | shared leads |\n|---|---|---|---|---|\n";
    for (const auto& m : w.ranking())
        md << "| " << m << " | " << w.wins.at(m) << " | " << w.wins_by_failures.at(m) << " | "
           << (w.decided ? percent(w.share(m)) : "–") << " | " << w.shared_leads.at(m) << " |\n";
    md << "\nDecided cells: " << w.decided << " (" << w.decided_by_failures
       << " with an arm ranked down for failures); shared leads: " << w.shared << "; ties: " << w.ties
       << "; no verdict: " << w.too_few_trials << " too few trials, " << w.not_sampled << " not sampled, "
       << w.not_ranked << " not ranked, " << w.unequal_work << " unequal work.\n\n";
    if (w.decided + w.shared + w.ties > 0)
        md << "![winners](" << s.name << "/winners.png)\n\n";
    if (w.scenarios.empty())
        return md.str();

    md << "| scenario |";
    for (const auto& m : s.models)
        md << " " << m << " wins |";
    md << " shared leads | ties | no verdict |\n|---|";
    for (std::size_t i = 0; i < s.models.size(); ++i)
        md << "---|";
    md << "---|---|---|\n";
    for (const auto& sc : w.scenarios) {
        std::map<std::string, unsigned> per;
        unsigned shared = 0, ties = 0, none = 0;
        for (const auto& [col, c] : w.cells.at(sc)) {
            if (c.kind == verdict::winner)
                ++per[c.winner];
            else if (c.kind == verdict::shared)
                ++shared;
            else if (c.kind == verdict::tie)
                ++ties;
            else
                ++none;
        }
        md << "| " << sc << scale_suffix(s, sc) << " |";
        for (const auto& m : s.models)
            md << " " << per[m] << " |";
        md << " " << shared << " | " << ties << " | " << none << " |\n";
    }

    md << "\n<details><summary>Verdict per metric</summary>\n\n| metric |";
    for (const auto& sc : w.scenarios)
        md << " " << sc << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < w.scenarios.size(); ++i)
        md << "---|";
    md << "\n";
    for (const auto& rule : winner_metrics()) {
        md << "| " << rule.label << (rule.direction == better::higher ? " ↑" : " ↓") << " |";
        for (const auto& sc : w.scenarios) {
            const auto& cells = w.cells.at(sc);
            auto it = cells.find(rule.column);
            md << " " << (it == cells.end() ? std::string{"–"} : cell_text(it->second))
               << (it != cells.end() && it->second.by_failures() ? " (by failures)" : "") << " |";
        }
        md << "\n";
    }
    // What "by failures" rests on: each arm's worst trial, per scenario.
    std::string failed;
    for (const auto& sc : w.scenarios) {
        std::map<std::string, failure_record> by_arm;  // the same trials in every cell of the scenario
        for (const auto& [col, c] : w.cells.at(sc))
            by_arm.insert(c.failures.begin(), c.failures.end());
        std::string arms;
        for (const auto& m : s.models)
            if (auto it = by_arm.find(m); it != by_arm.end())
                arms += (arms.empty() ? "" : ", ") + m + " " + failure_text(it->second);
        if (!arms.empty())
            failed += "- " + sc + ": " + arms + "\n";
    }
    if (!failed.empty())
        md << "\nFailed or unsent requests (worst trial; *by failures* where they exceed " << tolerance_text()
           << " of a trial's requests):\n\n"
           << failed;
    md << "\n</details>\n\n<details><summary>Ratios of medians with 95 % intervals, per pair of arms</summary>\n\n";
    for (const auto& sc : w.scenarios) {
        const auto& cells = w.cells.at(sc);
        md << "**" << sc << "**\n\n";
        bool any = std::any_of(cells.begin(), cells.end(), [](const auto& c) { return !c.second.pairs.empty(); });
        if (!any) {
            std::set<std::string_view> why;
            for (const auto& [col, c] : cells)
                why.insert(to_string(c.kind));
            std::string reasons;
            for (auto r : why)
                reasons += (reasons.empty() ? "" : ", ") + std::string(r);
            md << "No ratios: " << (reasons.empty() ? std::string{"no metric"} : reasons) << ".\n\n";
            continue;
        }
        md << "| metric | verdict |\n|---|---|\n";
        for (const auto& rule : winner_metrics()) {
            auto it = cells.find(rule.column);
            if (it == cells.end() || it->second.pairs.empty())
                continue;
            std::string text;
            for (const auto& p : it->second.pairs)
                text += (text.empty() ? "" : "<br>") + describe(p, rule);
            md << "| " << rule.label << " | " << text << " |\n";
        }
        md << "\n";
    }
    md << "</details>\n\n";
    return md.str();
}

}  // namespace execbench::report
