#include "execbench/report/chart_data/capacity_chart.hpp"

#include "execbench/load/record/capacity_record.hpp"
#include "execbench/load/record/slo.hpp"
#include "execbench/report/word/capacity_text.hpp"
#include "execbench/stats/trials.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace execbench::report {

namespace {

/// The steps with a latency to draw (a successful response), by their offered rate in whole req/s, in rate order.
std::map<long long, std::vector<const load::capacity_step*>>
steps_by_rate(const std::vector<load::capacity_step>& steps)
{
    std::map<long long, std::vector<const load::capacity_step*>> out;
    for (const auto& st : steps)
        if (st.achieved_rps > 0 && st.p99_millis > 0)
            out[std::llround(st.offered_rps)].push_back(&st);
    return out;
}

}  // namespace

std::string capacity_chart_name(const std::string& scenario)
{
    return "capacity-" + scenario + ".svg";
}

nlohmann::json capacity_chart_data(const suite_data& s, const std::string& scenario)
{
    nlohmann::json j;
    j["kind"] = "capacity";
    j["all_arms"] = s.models;
    auto searches = searches_of(s, scenario);
    std::string slo = searches.empty() ? "" : searches.front()->slo;
    j["title"] = scenario + ": latency against the offered rate (SLO " + slo + ")";
    j["bounds"] = nlohmann::json::array();
    if (auto gates = load::parse_slo(slo))
        for (const auto& g : *gates)
            if (g.metric.rfind("latency_millis_", 0) == 0)
                j["bounds"].push_back({{"label", g.text}, {"millis", g.limit}});
    j["arms"] = nlohmann::json::array();
    for (const auto* r : searches) {
        nlohmann::json a;
        a["arm"] = r->arm;
        a["outcome"] = load::to_string(r->result.what);
        a["capacity_rps"] = r->result.capacity_rps;
        a["lower_bound"] = r->result.lower_bound();
        a["label"] = capacity_cell(r->result);
        if (r->result.what == load::capacity_result::outcome::measured) {
            a["low_rps"] = r->result.low_rps;
            a["high_rps"] = r->result.high_rps;
        }
        // One point per offered rate, in rate order, drawn against that rate: joined in the order they ran, or by
        // their achieved rate (which an overloaded step pulls back below the passing steps beside it), the
        // bisections' steps zig-zag. Repeats at one rate are drawn as their median with their range.
        for (const auto& rate_steps : steps_by_rate(r->result.steps)) {
            // Named, not a structured binding: clang 14 cannot capture one in a lambda (the sanitizer build's).
            const auto& rate = rate_steps.first;
            const auto& at_rate = rate_steps.second;
            auto figure = [&](double load::capacity_step::*member) {
                std::vector<double> v;
                for (const auto* st : at_rate)
                    v.push_back(st->*member);
                return stats::summarize(v);
            };
            auto p50 = figure(&load::capacity_step::p50_millis);
            auto p99 = figure(&load::capacity_step::p99_millis);
            a["offered_rps"].push_back(rate);
            a["achieved_rps"].push_back(figure(&load::capacity_step::achieved_rps).median);
            a["p50"].push_back(p50.median);
            a["p99"].push_back(p99.median);
            a["p99_range"].push_back({p99.min, p99.max});
            a["steps"].push_back(at_rate.size());
            a["met_slo"].push_back(
                std::all_of(at_rate.begin(), at_rate.end(), [](const auto* st) { return st->met_slo; }));
            a["generator_bound"].push_back(
                std::any_of(at_rate.begin(), at_rate.end(), [](const auto* st) { return st->generator_bound; }));
        }
        if (a.contains("offered_rps"))
            j["arms"].push_back(a);
    }
    return j;
}

}  // namespace execbench::report
