#include "execbench/report/suite_page/capacity_section.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/scenario/duration.hpp"
#include "execbench/report/chart_data/capacity_chart.hpp"
#include "execbench/report/chart_data/chart_hash.hpp"
#include "execbench/report/judge/capacity_figures.hpp"
#include "execbench/report/word/capacity_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace execbench::report {

std::string capacity_steps_text(const suite_data& s)
{
    // A search's context line is its first step's: that step's warm-up and length are every step's.
    std::map<std::string, double> seconds_per_step;
    for (const auto& c : s.contexts)
        seconds_per_step[c.run_id] =
            std::chrono::duration<double>(c.scenario_used.warmup + c.scenario_used.load.length).count();
    std::size_t steps = 0;
    double total = 0;
    for (const auto& [sc, by_arm] : s.capacity)
        for (const auto& [arm, r] : by_arm) {
            steps += r.result.steps.size();
            if (auto it = seconds_per_step.find(r.run_id); it != seconds_per_step.end())
                total += it->second * double(r.result.steps.size());
        }
    if (steps == 0)
        return {};
    return "the times of each capacity search's first step; " + grouped(steps) + " step(s) in all followed" +
           (total > 0 ? ", about " +
                            load::format_duration(
                                std::chrono::duration_cast<load::duration>(std::chrono::seconds(std::llround(total)))) +
                            " of warm-up and load"
                      : std::string{});
}

namespace {

/// A capacity in a table cell, sorted by the rate it shows.
cell capacity_table_cell(const load::capacity_result& r)
{
    // Sorted by the rate it shows, a lower bound included; one that measured nothing sorts as text.
    if (r.capacity_rps > 0 && r.what != load::capacity_result::outcome::stopped)
        return {capacity_cell(r), r.capacity_rps};
    return {capacity_cell(r)};
}

}  // namespace

page capacity_section(const suite_data& s, const report_paths& paths)
{
    page p;
    if (s.capacity_scenarios.empty())
        return p;
    p.add(heading{2, "Capacity"});
    p.add(paragraph{
        "The highest open-loop rate at which each arm met its scenario's SLO, found by `bench-suite`'s search "
        "(bracket by doubling, bisect to the scenario's resolution, repeat the bisection at the boundary; the 95 % "
        "interval is a bootstrap over the repeated bisections: [methodology](" +
        paths.methodology_link +
        "#capacity-the-highest-rate-that-meets-an-slo)). Each arm ran on its own fresh server, one step of each arm "
        "in turn. A `≥` figure is a lower bound, not the arm's capacity: the generator, not the server, limited the "
        "next step, or the search reached its highest rate. A capacity *bounded by the scenario's connections* is "
        "the scenario's limit, not the server's: above it requests found no free connection, at about connections / "
        "latency."});
    table capacities{{"scenario", "SLO", "connections"}, {}};
    capacities.header.insert(capacities.header.end(), s.models.begin(), s.models.end());
    for (const auto& sc : s.capacity_scenarios) {
        auto searches = searches_of(s, sc);
        if (searches.empty())
            continue;
        std::vector<cell> r{sc, "`" + searches.front()->slo + "`", searches.front()->connections};
        for (const auto& m : s.models) {
            auto it = s.capacity.at(sc).find(m);
            r.push_back(it == s.capacity.at(sc).end() ? cell{"–"} : capacity_table_cell(it->second.result));
        }
        capacities.rows.push_back(std::move(r));
    }
    p.add(std::move(capacities));

    p.add(paragraph{"**Efficiency: server CPU per request at a common rate** (µs of server CPU per successful request, "
                    "from the 10 Hz samples of the step; the rate is the highest bracket step every arm met the SLO "
                    "at, so every arm did the same work):"});
    table efficiency{{"scenario", "rate"}, {}};
    efficiency.header.insert(efficiency.header.end(), s.models.begin(), s.models.end());
    for (const auto& sc : s.capacity_scenarios) {
        auto e = common_rate_efficiency(s.capacity.at(sc));
        std::vector<cell> r{sc, e ? cell{load::rate_text(e->rate) + " req/s", e->rate} : cell{"no rate every arm passed"}};
        for (const auto& m : s.models) {
            if (!e || !e->cpu_micros.count(m)) {
                r.emplace_back("–");
                continue;
            }
            auto micros = e->cpu_micros.at(m);
            r.emplace_back(fixed(micros, micros < 10 ? 1 : 0) + " µs", micros);
        }
        efficiency.rows.push_back(std::move(r));
    }
    p.add(std::move(efficiency));

    for (const auto& sc : s.capacity_scenarios) {
        p.add(heading{3, sc + " (capacity)"});
        if (s.descriptions.count(sc))
            p.add(paragraph{s.descriptions.at(sc)});
        bullets searches;
        for (const auto* r : searches_of(s, sc)) {
            std::size_t bound = std::count_if(r->result.steps.begin(), r->result.steps.end(),
                                              [](const auto& st) { return st.generator_bound; });
            auto item = r->arm + ": " + capacity_cell(r->result) + "; " + std::to_string(r->result.steps.size()) +
                        (r->result.steps.size() == 1 ? " step" : " steps") + ", estimates";
            for (auto e : r->result.estimates)
                item += " " + load::rate_text(e);
            if (r->result.estimates.empty())
                item += " none";
            if (bound > 0)
                item += "; the last step was " + r->result.steps.back().note;
            searches.items.push_back(std::move(item));
        }
        if (!searches.items.empty())
            p.add(std::move(searches));
        auto data = capacity_chart_data(s, sc);
        if (!data["arms"].empty())
            p.add(chart_ref{sc + " capacity", s.name + "/" + capacity_chart_name(sc), fnv1a_hex(data.dump())});
    }
    return p;
}

page capacity_headline(const std::vector<const suite_data*>& shown, const std::vector<std::string>& arms,
                       const report_paths& paths)
{
    table t{{"suite", "scenario"}, {}};
    t.header.insert(t.header.end(), arms.begin(), arms.end());
    t.header.emplace_back("SLO");
    for (const auto* s : shown)
        for (const auto& sc : s->capacity_scenarios) {
            auto searches = searches_of(*s, sc);
            if (searches.empty())
                continue;
            std::vector<cell> r{"[" + s->name + "](" + paths.docs_link + "/" + s->name + ".md#capacity)", sc};
            for (const auto& m : arms) {
                auto it = s->capacity.at(sc).find(m);
                r.push_back(it == s->capacity.at(sc).end() ? cell{"–"} : capacity_table_cell(it->second.result));
            }
            r.emplace_back("`" + searches.front()->slo + "`");
            t.rows.push_back(std::move(r));
        }
    page p;
    if (t.rows.empty())
        return p;
    p.add(paragraph{"Capacity: the highest open-loop rate each arm sustained within the scenario's SLO, with its 95 % "
                    "interval; `≥` marks a lower bound (the generator, not the server, stopped the search, or the "
                    "search reached its highest rate), and a figure bounded by the scenario's connections is the "
                    "scenario's limit, not the server's:"});
    p.add(std::move(t));
    return p;
}

}  // namespace execbench::report
