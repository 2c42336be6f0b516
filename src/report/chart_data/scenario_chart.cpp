#include "execbench/report/chart_data/scenario_chart.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/scenario/ramp.hpp"
#include "execbench/report/word/words.hpp"

#include <chrono>

namespace execbench::report {

namespace metric = load::metric;

std::string chart_name(const std::string& scenario)
{
    return scenario + ".svg";
}

namespace {

/// Every column of a per-second series as name → values (the chart script leaves out the partial last second of
/// rates, keeping it for errors, which a timeout at the end of a trial would otherwise hide). A column with a value
/// in only some seconds (users while a ramp issues requests, the generator's CPU of whole seconds) keeps its
/// seconds in `<column>@second`, so it is never drawn against the wrong second.
nlohmann::json columns_of(const std::vector<load::figure_map>& rows)
{
    nlohmann::json out = nlohmann::json::object();
    std::map<std::string, nlohmann::json> seconds;
    std::size_t with_second = 0;
    for (const auto& r : rows) {
        auto sec = r.find(load::column::second);
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
    return v.shape == load::shape::burst || v.number(metric::wall_millis) < burst_millis;
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
            shape_burst |= v->shape == load::shape::burst;
        }
    j["kind"] = burst ? "distribution" : "timeline";
    if (burst)
        j["why"] = shape_burst ? "a burst" : "a run shorter than 3 s";
    j["title"] = s.name + " / " + scenario + scale_suffix(s, scenario) + tls_suffix(s, scenario);
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
        if (v->scale != 1)
            a["scale"] = v->scale;
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
            // A timeline without users (schema 1 before the columns: the upgrade does not invent a count): the
            // schedule the scenario set, so a collapse at the peak reads against the load that caused it.
            if (!a["series"].contains(load::column::users) && !a["series"].contains(load::column::users_target))
                if (auto schedule = ramp_schedule(*v); !schedule.is_null())
                    a["schedule"] = std::move(schedule);
        }
        j["arms"].push_back(a);
    }
    return j;
}

}  // namespace execbench::report
