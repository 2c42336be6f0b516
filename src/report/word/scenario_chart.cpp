#include "execbench/report/word/scenario_chart.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/scenario/ramp.hpp"
#include "execbench/report/judge/winners.hpp"
#include "execbench/report/word/verdict_text.hpp"
#include "execbench/report/word/words.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace execbench::report {

namespace metric = load::metric;

std::string fnv1a_hex(std::string_view data)
{
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string chart_name(const std::string& scenario)
{
    return scenario + ".svg";
}

namespace {

/// Every column of a per-second series as name → values (the chart script leaves out the partial last second of
/// rates, keeping it for errors, which a timeout at the end of a trial would otherwise hide). A column with a value
/// in only some seconds (users while a ramp issues requests, the generator's CPU of whole seconds) keeps its
/// seconds in `<column>@second`, so it is never drawn against the wrong second.
nlohmann::json columns_of(const std::vector<std::map<std::string, double>>& rows)
{
    nlohmann::json out = nlohmann::json::object();
    std::map<std::string, nlohmann::json> seconds;
    std::size_t with_second = 0;
    for (const auto& r : rows) {
        auto sec = r.find(std::string(load::column::second));
        if (sec == r.end())
            continue;
        ++with_second;
        for (const auto& [k, v] : r) {
            if (!out.contains(k))
                out[k] = nlohmann::json::array();
            out[k].push_back(v);
            seconds[k].push_back(sec->second);
        }
    }
    for (auto& [k, at] : seconds)
        if (at.size() != with_second)
            out[k + "@second"] = std::move(at);
    return out;
}

bool is_burst(const run_view& v)
{
    return v.text(load::column::shape) == "burst" || v.number(metric::wall_millis) < burst_millis;
}

/// The users a ramp's scenario scheduled, as (second, users) points at each stage's ends, from a run's context
/// (the stages as run, scale included); null when the run is no ramp or the context does not say.
nlohmann::json ramp_schedule(const run_view& v)
{
    if (!v.context || v.context->scenario_used.load.kind != load::shape::ramp ||
        v.context->scenario_used.load.stages.empty())
        return nullptr;
    const auto& stages = v.context->scenario_used.load.stages;
    nlohmann::json t = nlohmann::json::array(), users = nlohmann::json::array();
    load::duration at{};
    t.push_back(0.0);
    users.push_back(load::ramp_users_at(stages, at));
    for (const auto& st : stages) {
        at += st.length;
        t.push_back(std::chrono::duration<double>(at).count());
        users.push_back(st.target);  // each stage ends at its target, linear between (k6's stages)
    }
    return {{"second", t}, {"users", users}};
}

nlohmann::json spectrum_json(const std::vector<std::pair<double, double>>& spectrum)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& [p, ms] : spectrum)
        a.push_back({p, ms});
    return a;
}

}  // namespace

nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario)
{
    nlohmann::json j;
    bool burst = false, shape_burst = false;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran()) {
            burst |= is_burst(*v);
            shape_burst |= v->text(load::column::shape) == "burst";
        }
    j["kind"] = burst ? "distribution" : "timeline";
    if (burst)
        j["why"] = shape_burst ? "a burst" : "a run shorter than 3 s";
    j["title"] = s.name + " / " + scenario + scale_suffix(s, scenario);
    j["all_arms"] = s.models;  // the style of an arm stays the same on every chart of the suite
    j["arms"] = nlohmann::json::array();
    for (const auto& m : s.models) {
        const auto* v = find_run(s, scenario, m);
        if (!v || !v->ran())
            continue;
        nlohmann::json a;
        a["arm"] = m;
        a[metric::requests_ok] = whole(v->number(metric::requests_ok));
        a[metric::requests_error] = whole(v->number(metric::requests_error));
        a["latency_max"] = v->number(metric::latency_millis_max);
        if (v->scale() != 1)
            a["scale"] = v->scale();
        if (burst) {
            a["spectrum"] = spectrum_json(v->latency_spectrum);
            a["service_spectrum"] = spectrum_json(v->service_spectrum);
            a[metric::wall_millis] = v->number(metric::wall_millis);
            if (!shape_burst)  // a fixed duration: the wall time is the setting, CPU says more
                a[metric::server_cpu_percent_avg] = v->number(metric::server_cpu_percent_avg);
            a[metric::requests_per_second] = v->number(metric::requests_per_second);
            a["trials"] = whole(v->number(load::column::trials));
        } else {
            a["trial"] = v->chart_trial;
            a["full_seconds"] = v->number(metric::wall_millis) / 1000.0;
            a["series"] = columns_of(v->timeline);
            a["server"] = columns_of(v->server_timeline);
            // Results from before the timeline recorded users: the schedule the scenario set, so a collapse at the
            // peak reads against the load that caused it.
            if (!a["series"].contains(load::column::users) && !a["series"].contains(load::column::users_target))
                if (auto schedule = ramp_schedule(*v); !schedule.is_null())
                    a["schedule"] = std::move(schedule);
        }
        j["arms"].push_back(a);
    }
    return j;
}

nlohmann::json winners_chart_data(const suite_data& s)
{
    auto w = rank(figures_of(s), s.models);
    if (w.decided + w.ties == 0)
        return nullptr;
    nlohmann::json j;
    j["kind"] = "winners";
    j["title"] = s.name + " suite: winner and runner-up per metric (95 % bootstrap intervals)";
    j["all_arms"] = s.models;
    j["scenarios"] = w.scenarios;
    j["metrics"] = nlohmann::json::array();
    for (const auto& rule : winner_metrics())
        j["metrics"].push_back(rule.label + (rule.direction == better::higher ? " ↑" : " ↓"));
    // Per metric and scenario: the verdict, the runner-up (the arm the winner leads by least) and that lead.
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& rule : winner_metrics()) {
        nlohmann::json row = nlohmann::json::array();
        for (const auto& sc : w.scenarios) {
            nlohmann::json cell = {{"winner", nullptr}, {"runner_up", nullptr}, {"lead_percent", nullptr}};
            auto by_metric = w.cells.find(sc);
            const cell_verdict* v = nullptr;
            if (by_metric != w.cells.end())
                if (auto it = by_metric->second.find(rule.column); it != by_metric->second.end())
                    v = &it->second;
            if (!v || (v->kind != verdict::winner && v->kind != verdict::shared && v->kind != verdict::tie)) {
                cell["state"] = "none";
            } else if (v->kind == verdict::tie) {
                cell["state"] = "tie";
            } else if (v->kind == verdict::shared) {
                cell["state"] = "shared";
                cell["leaders"] = v->leaders;
            } else {
                cell["state"] = "won";
                cell["winner"] = v->winner;
                if (const auto* p = deciding_pair(*v, rule); p && p->by_failures) {
                    // Won because every other arm failed: there is no measured lead to print, only who failed.
                    cell["state"] = "won_by_failures";
                    cell["failed"] = v->demoted();
                } else if (p) {
                    // The lead as "how many times better, minus one": 2× either way reads 100 %.
                    double r = p->ratio.ratio > 0 ? p->ratio.ratio : 1.0;
                    cell["runner_up"] = p->first == v->winner ? p->second : p->first;
                    cell["lead_percent"] = (std::max(r, 1.0 / r) - 1.0) * 100.0;
                }
            }
            row.push_back(cell);
        }
        cells.push_back(row);
    }
    j["cells"] = cells;
    return j;
}

nlohmann::json summary_chart_data(const std::vector<suite_data>& suites)
{
    nlohmann::json j;
    j["kind"] = "summary";
    j["title"] = "latency p99 per scenario and arm (median of the trials, log scale)";
    j["failure_tolerance_percent"] = failure_tolerance * 100;
    std::vector<std::string> arms;
    j["suites"] = nlohmann::json::array();
    for (const auto& s : suites) {
        nlohmann::json suite{{"name", s.name}, {"scenarios", nlohmann::json::array()}, {"arms", s.models}};
        nlohmann::json p99 = nlohmann::json::object(), failed = nlohmann::json::object();
        for (const auto& m : s.models) {
            p99[m] = nlohmann::json::array();
            failed[m] = nlohmann::json::array();
        }
        for (const auto& sc : s.scenarios) {
            if (!any_ran(s, sc))
                continue;
            suite["scenarios"].push_back(sc + scale_suffix(s, sc));
            for (const auto& m : s.models) {
                const auto* v = find_run(s, sc, m);
                // A generator-bound run or one awaiting re-measurement has no figure of the model's to draw.
                bool ran = v && v->ran() && v->number(metric::requests_ok) > 0 && v->not_a_result().empty();
                p99[m].push_back(ran ? nlohmann::json(v->number(metric::latency_millis_p99)) : nlohmann::json(nullptr));
                // Failed beyond the tolerance, or no run at all: either way its bar is no like-for-like figure.
                failed[m].push_back(!v || !v->ran() || failed_or_unsent(usable_trials(v->trials)) ||
                                    v->number(metric::requests_ok) == 0);
            }
        }
        if (suite["scenarios"].empty())
            continue;
        for (const auto& m : s.models)
            if (std::find(arms.begin(), arms.end(), m) == arms.end())
                arms.push_back(m);
        suite["p99"] = std::move(p99);
        suite["failed"] = std::move(failed);
        j["suites"].push_back(std::move(suite));
    }
    if (j["suites"].empty())
        return nullptr;
    // The execution models first, so each keeps the colour it has on the suites' own charts.
    std::stable_sort(arms.begin(), arms.end(), [](const std::string& a, const std::string& b) {
        auto rank = [](const std::string& x) {
            return std::find(known_models().begin(), known_models().end(), x) - known_models().begin();
        };
        return rank(a) < rank(b);
    });
    j["all_arms"] = arms;
    return j;
}

}  // namespace execbench::report
