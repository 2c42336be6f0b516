// The steps of read_suite: each results file of a suite folder read into suite_data.
#include "suite_files.hpp"

#include "execbench/core/file.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/report/read/trial_figures.hpp"
#include "execbench/stats/sampler.hpp"

#include <algorithm>

namespace execbench::report::detail {

namespace metric = load::metric;
namespace column = load::column;

namespace {

/// The percentiles a spectrum is drawn at, HdrHistogram style: dense towards the tail.
constexpr double spectrum_points[] = {0,    10,    20,   30,    40,     50,    60,     70,     75, 80,
                                      85,   90,    92.5, 95,    96.25,  97.5,  98.125, 98.75,  99, 99.25,
                                      99.5, 99.75, 99.9, 99.95, 99.975, 99.99, 99.995, 99.999, 100};

std::vector<std::pair<double, double>> spectrum_of(const stats::histogram& h)
{
    std::vector<std::pair<double, double>> out;
    if (h.count() == 0)
        return out;
    for (double p : spectrum_points) {
        // The top of a bucket can exceed the largest value seen; the exact max bounds every percentile.
        auto us = p == 0 ? h.min() : p == 100 ? h.max() : std::min(h.value_at_percentile(p), h.max());
        out.emplace_back(p, static_cast<double>(us) / 1000.0);
    }
    return out;
}

void note_scenario(suite_data& d, const std::string& scenario)
{
    if (std::find(d.scenarios.begin(), d.scenarios.end(), scenario) == d.scenarios.end())
        d.scenarios.push_back(scenario);
}

/// The server's settings as a page prints them: "separate downstream (loop), --threads 400".
std::string server_settings_text(const load::server_spec& server)
{
    std::string text;
    if (server.downstream == "separate")
        text = "separate downstream (" + server.downstream_model + ")";
    for (const auto& [k, v] : server.options)
        text += (text.empty() ? "" : ", ") + ("--" + k) + (v != "true" ? " " + v : "");
    return text;
}

}  // namespace

result<void> read_latest_runs(suite_data& d, const load::output_paths& paths, std::string_view run_selector,
                              std::set<std::string>& arms)
{
    std::map<std::string, load::summary_row> summary_by_run;
    std::vector<std::string> summary_order;
    if (std::filesystem::exists(paths.summary)) {
        auto rows = load::read_summary(paths.summary);
        if (!rows)
            return rows.err();
        for (auto& row : *rows) {
            summary_order.push_back(load::cell_of(row, column::run_id));
            summary_by_run[load::cell_of(row, column::run_id)] = std::move(row);
        }
    }
    // A selected run: its run id or its summary row's git revision starts with the selector.
    auto selected = [&](const std::string& run_id) {
        if (run_selector.empty() || run_id.starts_with(run_selector))
            return true;
        auto it = summary_by_run.find(run_id);
        return it != summary_by_run.end() && !run_id.empty() &&
               load::cell_of(it->second, column::git_revision).starts_with(run_selector);
    };
    auto ledger_file = load::ledger_path(d.dir, d.stem);
    if (std::filesystem::exists(ledger_file)) {
        auto ledger = load::read_ledger(ledger_file);
        if (!ledger)
            return ledger.err();
        for (const auto& e : *ledger) {
            if (!selected(e.run_id))
                continue;
            note_scenario(d, e.scenario);
            run_view v;
            v.scenario = e.scenario;
            v.model = e.model;
            v.arm = e.arm_name();
            v.status = e.status;
            v.message = e.message;
            v.run_id = e.run_id;
            if (auto it = summary_by_run.find(e.run_id); !e.run_id.empty() && it != summary_by_run.end()) {
                v.take_summary(it->second);
                v.arm = v.text(column::arm);
            }
            // load::status_of's order, for runs filed before a refusal came ahead of a busy generator.
            if (v.status == load::run_status::generator_bound && v.refused_every_request())
                v.status = load::run_status::errors;
            arms.insert(v.arm);
            d.runs[e.scenario][v.arm] = std::move(v);  // later lines replace earlier ones
        }
        return {};
    }
    // Plain bench-load results: every summary row is a run; the last one of a scenario × arm counts.
    for (const auto& id : summary_order) {
        if (!selected(id))
            continue;
        const auto& row = summary_by_run[id];
        run_view v;
        v.scenario = load::cell_of(row, column::scenario);
        v.model = load::cell_of(row, column::model);
        v.arm = load::cell_of(row, column::arm);
        v.run_id = id;
        v.take_summary(row);
        // The order of load::status_of: a stopped run says so before its errors.
        v.status = v.partial                               ? load::run_status::stopped
                   : v.number(metric::requests_error) > 0  ? load::run_status::errors
                   : v.number(metric::requests_unsent) > 0 ? load::run_status::behind
                                                           : load::run_status::ok;
        note_scenario(d, v.scenario);
        arms.insert(v.arm);
        d.runs[v.scenario][v.arm] = std::move(v);
    }
    return {};
}

result<void> read_capacity_searches(suite_data& d, std::set<std::string>& arms)
{
    auto cpaths = load::capacity_paths_for(d.dir / (d.stem + ".csv"));
    if (!std::filesystem::exists(cpaths.summary))
        return {};
    auto records = load::read_capacity(cpaths);
    if (!records)
        return records.err();
    for (auto& r : *records) {
        if (std::find(d.capacity_scenarios.begin(), d.capacity_scenarios.end(), r.scenario) ==
            d.capacity_scenarios.end())
            d.capacity_scenarios.push_back(r.scenario);
        arms.insert(r.arm);
        auto scenario = r.scenario;
        auto arm = r.arm;
        d.capacity[scenario][arm] = std::move(r);
    }
    return {};
}

result<void> read_reused(suite_data& d, const std::set<std::string>& shown)
{
    auto rows = load::read_reused_rows(load::reused_path(d.dir, d.stem));
    if (!rows)
        return rows.err();
    for (auto& r : *rows)
        if (r.kind != "profile" && shown.contains(r.run_id))
            d.reused[r.scenario][r.arm] = std::move(r);
    return {};
}

result<void> read_profiles(suite_data& d)
{
    for (const auto& [sc, by_arm] : d.runs)
        for (const auto& [arm, v] : by_arm) {
            auto csv = load::profile_path(d.dir, sc, arm, "csv");
            if (!std::filesystem::exists(csv))
                continue;
            auto record = load::read_profile_csv(csv);
            if (!record)
                return record.err();
            auto svg = std::filesystem::exists(load::profile_path(d.dir, sc, arm, "svg"));
            profile_view p{std::move(*record), {}, svg};
            auto folded = load::profile_path(d.dir, sc, arm, "folded");
            if (auto text = read_file(folded); text) {
                auto stacks = load::parse_folded(*text);
                if (!stacks)
                    return fail(folded.string() + ": " + stacks.err().message);
                p.top = load::top_self_time(*stacks, top_functions);
            }
            d.profiles[sc][arm] = std::move(p);
        }
    return {};
}

void order_arms(suite_data& d, const std::set<std::string>& arms)
{
    for (const auto& m : known_models())
        if (arms.count(m))
            d.models.push_back(m);
    for (const auto& m : arms)
        if (std::find(known_models().begin(), known_models().end(), m) == known_models().end())
            d.models.push_back(m);
}

std::set<std::string> shown_runs(const suite_data& d)
{
    std::set<std::string> shown;
    for (const auto& [sc, by_model] : d.runs)
        for (const auto& [m, v] : by_model)
            if (v.ran())
                shown.insert(v.run_id);
    for (const auto& [sc, by_arm] : d.capacity)
        for (const auto& [arm, r] : by_arm)
            shown.insert(r.run_id);
    return shown;
}

result<void> read_trials(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown)
{
    if (!std::filesystem::exists(file))
        return {};
    auto rows = load::read_trial_rows(file);
    if (!rows)
        return rows.err();
    std::map<std::string, std::vector<std::pair<double, unsigned>>> by_run;
    std::map<std::string, std::vector<load::figure_map>> rows_by_run;
    for (auto& row : *rows)
        if (shown.count(row.run_id)) {
            by_run[row.run_id].emplace_back(row.figures[std::string(metric::latency_millis_p99)],
                                            static_cast<unsigned>(row.figures[std::string(column::trial)]));
            add_derived_metrics(row.figures);
            rows_by_run[row.run_id].push_back(std::move(row.figures));
        }
    for (auto& [sc, by_model] : d.runs)
        for (auto& [m, v] : by_model) {
            v.trials = rows_by_run[v.run_id];
            // A refusal is the run's result (load::refused_every_request): its trials count for the verdicts, where
            // the arm ranks below every arm without failures, instead of leaving the scenario too few trials.
            if (v.refused_every_request())
                for (auto& t : v.trials)
                    t[std::string(column::generator_bound)] = 0;
            auto it = by_run.find(v.run_id);
            if (it == by_run.end() || it->second.empty())
                continue;
            auto trials = it->second;
            std::sort(trials.begin(), trials.end());
            v.chart_trial = trials[(trials.size() - 1) / 2].second;
        }
    return {};
}

result<void> read_series(suite_data& d, const std::filesystem::path& file, load::row_kind kind,
                         std::vector<load::figure_map> run_view::*member)
{
    if (!std::filesystem::exists(file))
        return {};
    std::map<std::string, run_view*, std::less<>> by_id;
    for (auto& [sc, by_model] : d.runs)
        for (auto& [m, v] : by_model)
            if (v.ran())
                by_id[v.run_id] = &v;
    // Only the charted trial of a shown run is converted: the files hold every trial of every run ever appended.
    auto rows = load::read_second_rows(file, kind, [&](std::string_view run_id, unsigned trial) {
        auto it = by_id.find(run_id);
        return it != by_id.end() && trial == it->second->chart_trial;
    });
    if (!rows)
        return rows.err();
    for (auto& row : *rows)
        (by_id.at(row.run_id)->*member).push_back(std::move(row.figures));
    return {};
}

result<void> read_contexts(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown)
{
    auto contexts = load::read_context_file(file);
    if (!contexts)
        return contexts.err();
    // Every server run's line: an interleaved run has one per round, each with its own load and steal.
    std::map<std::string, std::vector<load::run_context>> by_id;
    for (auto& c : *contexts) {
        if (c.run_id.empty() || !shown.count(c.run_id))
            continue;
        const auto& s = c.scenario_used;
        d.descriptions[s.name] = s.description;
        d.server_settings[s.name] = server_settings_text(s.server);
        by_id[c.run_id].push_back(std::move(c));
    }
    for (const auto& sc : d.scenarios)
        for (const auto& m : d.models) {
            auto it = d.runs[sc].find(m);
            if (it != d.runs[sc].end())
                if (auto c = by_id.find(it->second.run_id); c != by_id.end()) {
                    d.contexts.insert(d.contexts.end(), c->second.begin(), c->second.end());
                    it->second.context = c->second.back();
                }
        }
    // A capacity search's context is its first step's.
    for (const auto& sc : d.capacity_scenarios)
        for (const auto& m : d.models)
            if (auto it = d.capacity[sc].find(m); it != d.capacity[sc].end())
                if (auto c = by_id.find(it->second.run_id); c != by_id.end())
                    d.contexts.push_back(c->second.front());
    return {};
}

result<void> read_spectra(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown)
{
    if (!std::filesystem::exists(file))
        return {};
    auto records = load::read_histograms(file);
    if (!records)
        return records.err();
    std::map<std::pair<std::string, std::string>, stats::histogram> merged;
    for (auto& r : *records) {
        if (!shown.count(r.run_id) || (r.series != "latency" && r.series != "service"))
            continue;
        auto key = std::make_pair(r.run_id, r.series);
        auto it = merged.find(key);
        if (it == merged.end())
            merged.emplace(key, std::move(r.histogram));
        else if (auto m = it->second.merge(r.histogram); !m)
            return fail(file.string() + ": run " + r.run_id + ": " + m.err().message);
    }
    for (auto& [sc, by_arm] : d.runs)
        for (auto& [a, v] : by_arm) {
            if (auto it = merged.find({v.run_id, "latency"}); it != merged.end())
                v.latency_spectrum = spectrum_of(it->second);
            if (auto it = merged.find({v.run_id, "service"}); it != merged.end())
                v.service_spectrum = spectrum_of(it->second);
        }
    return {};
}

}  // namespace execbench::report::detail
