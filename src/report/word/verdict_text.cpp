#include "execbench/report/word/verdict_text.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/word/words.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace execbench::report {

namespace metric = load::metric;

namespace {

/// A factor at three significant digits, so a decided 1.004× does not print as a tie-looking 1.00×.
std::string factor(double v)
{
    if (std::isinf(v))
        return "∞";
    return fixed(v, v < 1.1 ? 3 : v < 10 ? 2 : v < 100 ? 1 : 0);
}

std::string factor_with_interval(double f, double low, double high)
{
    return factor(f) + "× (" + factor(low) + "–" + factor(high) + ")";
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

std::string cell_text(const cell_verdict& c)
{
    if (c.kind != verdict::winner && c.kind != verdict::shared)
        return std::string(to_string(c.kind));
    std::string text;
    for (const auto& a : c.leaders)
        text += (text.empty() ? "" : " = ") + a;
    return text;
}

std::string describe(const pair_verdict& p, const metric_rule& rule)
{
    if (p.better.empty())
        return tie_text(p);
    const auto& worse = worse_of(p);
    if (p.by_failures)
        return p.better + " above " + worse + " (" + worse + ": " + failure_text(p.failure) + ", over " +
               tolerance_text() + " of its requests; " +
               (p.measured ? p.first + " / " + p.second + " " +
                                 factor_with_interval(p.ratio.ratio, p.ratio.low, p.ratio.high)
                           : "no ratio: " + p.first + " or " + p.second + " is 0 or has no " + rule.label) +
               ")";
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

std::string verdict_line(const cell_verdict& c, const metric_rule& rule, failures_said failures)
{
    const auto* p = deciding_pair(c, rule);
    if (!p)
        return std::string(to_string(c.kind));
    if (c.kind == verdict::tie)
        return tie_text(*p);
    auto lead = cell_text(c);
    // Every arm the failures ranked down, with the figure that did it (the worst trial's).
    std::string failed;
    if (failures == failures_said::in_line)
        for (const auto& a : c.demoted())
            failed += (failed.empty() ? "" : ", ") + a + " " + failure_text(c.failures.at(a));
    failed = failed.empty() ? failed : "failures over " + tolerance_text() + " of requests: " + failed;
    if (p->by_failures)
        return lead + " (" + failed + ")";
    return lead + ": " + in_favour(*p, rule) + (rule.direction == better::lower ? " lower" : " higher") + " than " +
           worse_of(*p) + (failed.empty() ? "" : "; " + failed);
}

namespace {

/// A count in a table, sorted as the number it is.
cell count_cell(unsigned n)
{
    return {std::to_string(n), double(n)};
}

/// How a cell is decided, with the limits the verdicts rest on.
paragraph method_text(std::string_view methodology_link)
{
    return {"Per scenario, metric and pair of arms: the ratio of the medians over the trials with a 95 % percentile "
            "bootstrap interval (method and limits in [methodology](" +
            std::string(methodology_link) +
            "#statistics)). An arm wins a cell only when it ranks above every other arm: an arm whose failed and "
            "unsent requests exceed " +
            tolerance_text() +
            " of a trial's requests ranks below every arm without (the cells name the arm and its worst trial's "
            "count); otherwise a pair is decided only where the whole interval lies more than " +
            fixed(tie_margin * 100, 0) +
            " % from 1 (the A/A noise floor: a smaller difference is a tie, however consistent). Arms that tie with "
            "each other and each rank above every remaining arm **share the lead** (shown as `fiber = loop`); "
            "anything else is a **tie**. No verdict: *too few trials* (an arm with fewer than " +
            std::to_string(min_verdict_trials) +
            " trials that are not generator-bound), *not sampled* (a trial with fewer than " +
            std::to_string(min_server_samples) +
            " server samples: the CPU, memory, thread and switch figures of a short burst), *not ranked* (sockets, "
            "set by the load generator's connections; per-second req/s of a trial shorter than 2 s, one bucket), "
            "*unequal work* (context switches, which grow with the work done, where the arms' "
            "requests ok differ by more than the noise floor). CPU is ranked as CPU-seconds per 1,000 completed "
            "requests (CPU avg × wall time ÷ requests ok) only, so an arm that serves fewer requests, or spreads the "
            "same work over three times as long, does not win it by doing less at a time; CPU max, RSS and threads "
            "are shown beside the verdicts and never decide one (memory per connection is the memory suite's "
            "figure). Requests ok, requests per second and sockets are higher-is-better, everything else "
            "lower-is-better, as in the Loom/WebFlux study. Arms that failed or did not run take no part."};
}

/// Each arm's leads alone (and by failures) and shared, and the cells by kind.
void write_counts(page& p, const suite_data& s, const winners_table& w)
{
    // Counts beside each other: a share of the decided cells alone made a lead over 13 cells read larger than the
    // 35 cells whose lead was shared.
    table counts{{"arm", "led alone", "of which by failures", "shared leads"}, {}};
    for (const auto& m : w.ranking())
        counts.rows.push_back(
            {m, count_cell(w.wins.at(m)), count_cell(w.wins_by_failures.at(m)), count_cell(w.shared_leads.at(m))});
    p.add(std::move(counts));
    p.add(paragraph{"Decided cells: " + std::to_string(w.decided) + " (" + std::to_string(w.decided_by_failures) +
                    " with an arm ranked down for failures); shared leads: " + std::to_string(w.shared) + "; ties: " +
                    std::to_string(w.ties) + "; no verdict: " + std::to_string(w.too_few_trials) + " too few trials, " +
                    std::to_string(w.not_sampled) + " not sampled, " + std::to_string(w.not_ranked) + " not ranked, " +
                    std::to_string(w.unequal_work) + " unequal work."});
    if (w.decided + w.shared + w.ties > 0)
        p.add(chart_ref{"winners", s.name + "/winners.svg", ""});
}

/// A row per scenario: each arm's leads alone, the shared leads, ties and cells without a verdict.
table scenario_counts(const suite_data& s, const winners_table& w)
{
    table t{{"scenario"}, {}};
    for (const auto& m : s.models)
        t.header.push_back(m + " led alone");
    t.header.insert(t.header.end(), {"shared leads", "ties", "no verdict"});
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
        std::vector<cell> row{sc + scale_suffix(s, sc) + tls_suffix(s, sc)};
        for (const auto& m : s.models)
            row.push_back(count_cell(per[m]));
        row.insert(row.end(), {count_cell(shared), count_cell(ties), count_cell(none)});
        t.rows.push_back(std::move(row));
    }
    return t;
}

/// The verdict of every metric in every scenario, and the failures a lead "by failures" rests on.
page verdicts_per_metric(const suite_data& s, const winners_table& w)
{
    page p;
    table t{{"metric"}, {}};
    t.header.insert(t.header.end(), w.scenarios.begin(), w.scenarios.end());
    for (const auto& rule : winner_metrics()) {
        std::vector<cell> row{rule.label + (rule.direction == better::higher ? " ↑" : " ↓")};
        for (const auto& sc : w.scenarios) {
            const auto& cells = w.cells.at(sc);
            auto it = cells.find(rule.column);
            row.push_back((it == cells.end() ? std::string{"–"} : cell_text(it->second)) +
                          (it != cells.end() && it->second.by_failures() ? " (by failures)" : ""));
        }
        t.rows.push_back(std::move(row));
    }
    p.add(std::move(t));
    // What "by failures" rests on: each arm's worst trial, per scenario.
    bullets failed;
    for (const auto& sc : w.scenarios) {
        std::map<std::string, failure_record> by_arm;  // the same trials in every cell of the scenario
        for (const auto& [col, c] : w.cells.at(sc))
            by_arm.insert(c.failures.begin(), c.failures.end());
        std::string arms;
        for (const auto& m : s.models)
            if (auto it = by_arm.find(m); it != by_arm.end())
                arms += (arms.empty() ? "" : ", ") + m + " " + failure_text(it->second);
        if (!arms.empty())
            failed.items.push_back(sc + ": " + arms);
    }
    if (!failed.items.empty())
        p.add(paragraph{"Failed or unsent requests (worst trial; *by failures* where they exceed " + tolerance_text() +
                        " of a trial's requests):"})
            .add(std::move(failed));
    return p;
}

/// Every pair's ratio of medians with its interval, per scenario and metric.
page ratios(const winners_table& w)
{
    page p;
    for (const auto& sc : w.scenarios) {
        const auto& cells = w.cells.at(sc);
        p.add(paragraph{"**" + sc + "**"});
        bool any = std::any_of(cells.begin(), cells.end(), [](const auto& c) { return !c.second.pairs.empty(); });
        if (!any) {
            std::set<std::string_view> why;
            for (const auto& [col, c] : cells)
                why.insert(to_string(c.kind));
            std::string reasons;
            for (auto r : why)
                reasons += (reasons.empty() ? "" : ", ") + std::string(r);
            p.add(paragraph{"No ratios: " + (reasons.empty() ? std::string{"no metric"} : reasons) + "."});
            continue;
        }
        table t{{"metric", "verdict"}, {}};
        for (const auto& rule : winner_metrics()) {
            auto it = cells.find(rule.column);
            if (it == cells.end() || it->second.pairs.empty())
                continue;
            std::string text;
            for (const auto& pair : it->second.pairs)
                text += (text.empty() ? "" : "<br>") + describe(pair, rule);
            t.rows.push_back({rule.label, text});
        }
        p.add(std::move(t));
    }
    return p;
}

}  // namespace

page winners_section(const suite_data& s, const winners_table& w, std::string_view methodology_link)
{
    page p;
    p.add(heading{2, "Winners"}).add(method_text(methodology_link));
    if (w.single_arm) {
        p.add(paragraph{"n/a: a suite with one arm has no winners."});
        return p;
    }
    write_counts(p, s, w);
    if (w.scenarios.empty())
        return p;
    p.add(scenario_counts(s, w));
    p.add(details{"Verdict per metric", verdicts_per_metric(s, w)});
    p.add(details{"Ratios of medians with 95 % intervals, per pair of arms", ratios(w)});
    return p;
}

}  // namespace execbench::report
