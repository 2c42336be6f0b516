#include "execbench/report/suite_reader.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/load/run/metric_names.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/report/trial_figures.hpp"
#include "execbench/stats/sampler.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>

namespace execbench::report {

namespace {

/// cpu_max_over_second on a context line already parsed.
bool cpu_max_over_second(const nlohmann::json& j)
{
    if (!j.is_object())
        return false;
    if (j.contains("server_sampling") && j["server_sampling"].is_object()) {
        const auto& s = j["server_sampling"];
        return s.contains("cpu_max_window_ms") && s["cpu_max_window_ms"].is_number() &&
               s["cpu_max_window_ms"].get<double>() >= double(stats::cpu_max_window.count());
    }
    // ISO 8601 times in UTC compare as text.
    return j.contains("started_at") && j["started_at"].is_string() &&
           j["started_at"].get<std::string>() >= cpu_max_rule_since;
}

}  // namespace

namespace metric = load::metric;
namespace column = load::column;

namespace {

/// A CSV row's value in column `c`; "" when the row has no such column.
std::string field(const std::map<std::string, std::string>& row, std::string_view c)
{
    auto it = row.find(std::string(c));
    return it == row.end() ? std::string{} : it->second;
}

/// The arm a summary row belongs to; results written before arms existed name only the model.
std::string arm_of(const std::map<std::string, std::string>& row)
{
    auto arm = field(row, column::arm);
    return arm.empty() ? field(row, column::model) : arm;
}

/// Rows of a CSV as column → value maps.
std::vector<std::map<std::string, std::string>> rows_of(const load::csv_table& t)
{
    std::vector<std::map<std::string, std::string>> out;
    for (const auto& row : t.rows) {
        std::map<std::string, std::string> m;
        for (std::size_t i = 0; i < t.header.size() && i < row.size(); ++i)
            m[t.header[i]] = row[i];
        out.push_back(std::move(m));
    }
    return out;
}

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

}  // namespace

const char* to_string(settings_change c)
{
    switch (c) {
    case settings_change::shorter: return "shorter";
    case settings_change::longer: return "longer";
    case settings_change::different: return "shorter and longer";
    }
    return "?";
}

const std::vector<std::string>& known_models()
{
    static const std::vector<std::string> models(model_names.begin(), model_names.end());
    return models;
}

std::string raw_results_file(const suite_data& s)
{
    auto file = std::filesystem::path(s.stem + ".csv");
    if (s.runs.empty() && !s.capacity.empty())
        file = load::capacity_paths_for(file).summary;
    return file.string();
}

double to_number(const std::string& s)
{
    if (s.empty())
        return 0;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    return end == s.c_str() ? 0 : v;
}

double run_view::number(std::string_view column) const
{
    auto it = summary.find(std::string(column));
    return it == summary.end() ? 0 : to_number(it->second);
}

std::string run_view::text(std::string_view column) const
{
    auto it = summary.find(std::string(column));
    return it == summary.end() ? std::string{} : it->second;
}

double run_view::scale() const
{
    auto it = summary.find(std::string(load::column::scale));
    return it == summary.end() || it->second.empty() ? 1 : to_number(it->second);
}

namespace {

/// The results sets in `dir`: the stems of its `-runs.csv` and `-trials.csv` files.
std::set<std::string> stems_in(const std::filesystem::path& dir)
{
    std::set<std::string> stems;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        auto file = e.path().filename().string();
        for (std::string_view suffix : {"-runs.csv", "-trials.csv"})
            if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
                stems.insert(file.substr(0, file.size() - suffix.size()));
    }
    return stems;
}

}  // namespace

std::string run_view::not_a_result() const
{
    if (!ran())
        return {};
    auto bound = number(load::column::generator_bound_trials);
    if (status == load::run_status::generator_bound || (bound > 0 && bound >= number(load::column::trials)))
        return "generator-bound";
    bool per_second_checked = std::any_of(timeline.begin(), timeline.end(), [](const auto& row) {
        return row.count(std::string(load::metric::loadgen_cpu_percent)) > 0;
    });
    // Without a timeline there is nothing to tell either way (results written by hand or by tests).
    if (text(load::column::shape) == "ramp" && !timeline.empty() && !per_second_checked)
        return "awaits re-measurement";
    return {};
}

std::string results_stem(const std::filesystem::path& dir)
{
    auto name = dir.filename().string();
    if (name.empty())
        name = dir.parent_path().filename().string();
    std::error_code ec;
    if (std::filesystem::exists(dir / (name + ".csv"), ec) || std::filesystem::exists(dir / (name + "-runs.csv"), ec) ||
        std::filesystem::exists(load::capacity_paths_for(dir / (name + ".csv")).summary, ec))
        return name;
    // A folder named by the user (bench-suite --out /tmp/x, bench-load --out /tmp/x/y.csv): the one results set in it.
    auto stems = stems_in(dir);
    return stems.size() == 1 ? *stems.begin() : std::string{};
}

std::string why_no_results(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return "no such folder";
    auto stems = stems_in(dir);
    if (stems.size() > 1) {
        std::string names;
        for (const auto& s : stems)
            names += (names.empty() ? "" : ", ") + s + ".csv";
        return "holds more than one results set (" + names + "); give a folder with one";
    }
    return "holds no results: neither a <name>.csv with its <name>-trials.csv (bench-load --out, bench-suite --out) "
           "nor folders holding one (bench-suite --results-dir)";
}

std::vector<std::filesystem::path> suite_dirs(const std::filesystem::path& results_root)
{
    if (!results_stem(results_root).empty())
        return {results_root};  // a suite folder given directly
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(results_root, ec))
        if (e.is_directory() && !results_stem(e.path()).empty())
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

result<suite_data> read_suite(const std::filesystem::path& dir, std::string_view run_selector)
{
    suite_data d;
    d.dir = dir;
    d.name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
    d.stem = results_stem(dir);
    if (d.stem.empty())
        return fail(dir.string() + ": " + why_no_results(dir));
    auto paths = load::output_paths_for(dir / (d.stem + ".csv"));
    auto note_scenario = [&](const std::string& s) {
        if (std::find(d.scenarios.begin(), d.scenarios.end(), s) == d.scenarios.end())
            d.scenarios.push_back(s);
    };
    std::set<std::string> models_seen;

    // Summary rows by run id; the ledger says which run of each scenario × model is the latest.
    std::map<std::string, std::map<std::string, std::string>> summary_by_run;
    std::vector<std::string> summary_order;
    if (std::filesystem::exists(paths.summary)) {
        auto t = load::read_csv(paths.summary);
        if (!t)
            return t.err();
        for (auto& row : rows_of(*t)) {
            summary_order.push_back(field(row, column::run_id));
            summary_by_run[field(row, column::run_id)] = std::move(row);
        }
    }
    // A selected run: its run id or its summary row's git revision starts with the selector.
    auto selected = [&](const std::string& run_id) {
        if (run_selector.empty() || run_id.starts_with(run_selector))
            return true;
        auto it = summary_by_run.find(run_id);
        return it != summary_by_run.end() && !run_id.empty() &&
               field(it->second, "git_revision").starts_with(run_selector);
    };
    auto ledger_file = load::ledger_path(dir, d.stem);
    if (std::filesystem::exists(ledger_file)) {
        auto ledger = load::read_ledger(ledger_file);
        if (!ledger)
            return ledger.err();
        for (const auto& e : *ledger) {
            if (!selected(e.run_id))
                continue;
            note_scenario(e.scenario);
            run_view v;
            v.scenario = e.scenario;
            v.model = e.model;
            v.arm = e.arm_name();
            v.status = e.status;
            v.message = e.message;
            v.run_id = e.run_id;
            if (auto it = summary_by_run.find(e.run_id); !e.run_id.empty() && it != summary_by_run.end()) {
                v.summary = it->second;
                v.arm = arm_of(v.summary);
            }
            models_seen.insert(v.arm);
            d.runs[e.scenario][v.arm] = std::move(v);  // later lines replace earlier ones
        }
    } else {
        // Plain bench-load results: every summary row is a run; the last one of a scenario × model counts.
        for (const auto& id : summary_order) {
            if (!selected(id))
                continue;
            const auto& row = summary_by_run[id];
            run_view v;
            v.scenario = field(row, column::scenario);
            v.model = field(row, column::model);
            v.arm = arm_of(row);
            v.run_id = id;
            v.summary = row;
            bool errors = to_number(field(row, metric::requests_error)) > 0 || field(row, column::partial) == "1";
            v.status = errors                                               ? load::run_status::errors
                       : to_number(field(row, metric::requests_unsent)) > 0 ? load::run_status::behind
                                                                            : load::run_status::ok;
            note_scenario(v.scenario);
            models_seen.insert(v.arm);
            d.runs[v.scenario][v.arm] = std::move(v);
        }
    }
    // Capacity searches (bench-suite on scenarios with a "capacity" object): the latest of each scenario × arm.
    if (auto cpaths = load::capacity_paths_for(dir / (d.stem + ".csv")); std::filesystem::exists(cpaths.summary)) {
        auto records = load::read_capacity(cpaths);
        if (!records)
            return records.err();
        for (auto& r : *records) {
            if (std::find(d.capacity_scenarios.begin(), d.capacity_scenarios.end(), r.scenario) ==
                d.capacity_scenarios.end())
                d.capacity_scenarios.push_back(r.scenario);
            models_seen.insert(r.arm);
            auto scenario = r.scenario;
            auto arm = r.arm;
            d.capacity[scenario][arm] = std::move(r);
        }
    }
    // Profiled trials (--profile): one per scenario × arm that ran, the latest written.
    for (const auto& [sc, by_arm] : d.runs)
        for (const auto& [arm, v] : by_arm) {
            auto csv = load::profile_path(dir, sc, arm, "csv");
            if (!std::filesystem::exists(csv))
                continue;
            auto record = load::read_profile_csv(csv);
            if (!record)
                return record.err();
            profile_view p{std::move(*record), {}, std::filesystem::exists(load::profile_path(dir, sc, arm, "svg"))};
            if (auto text = read_file(load::profile_path(dir, sc, arm, "folded")); text) {
                auto stacks = load::parse_folded(*text);
                if (!stacks)
                    return fail(load::profile_path(dir, sc, arm, "folded").string() + ": " + stacks.err().message);
                p.top = load::top_self_time(*stacks, top_functions);
            }
            d.profiles[sc][arm] = std::move(p);
        }
    for (const auto& m : known_models())
        if (models_seen.count(m))
            d.models.push_back(m);
    for (const auto& m : models_seen)
        if (std::find(known_models().begin(), known_models().end(), m) == known_models().end())
            d.models.push_back(m);

    std::set<std::string> shown;
    for (const auto& [sc, by_model] : d.runs)
        for (const auto& [m, v] : by_model)
            if (v.ran())
                shown.insert(v.run_id);
    for (const auto& [sc, by_arm] : d.capacity)
        for (const auto& [arm, r] : by_arm)
            shown.insert(r.run_id);

    // The charted trial: the median trial by latency p99.
    if (std::filesystem::exists(paths.trials)) {
        auto t = load::read_csv(paths.trials);
        if (!t)
            return t.err();
        std::map<std::string, std::vector<std::pair<double, unsigned>>> by_run;
        std::map<std::string, std::vector<std::map<std::string, double>>> rows_by_run;
        for (auto& row : rows_of(*t))
            if (shown.count(field(row, column::run_id))) {
                by_run[field(row, column::run_id)].emplace_back(
                    to_number(field(row, metric::latency_millis_p99)),
                    static_cast<unsigned>(to_number(field(row, column::trial))));
                auto& numbers = rows_by_run[field(row, column::run_id)].emplace_back();
                for (const auto& [column, text] : row)
                    numbers[column] = to_number(text);
                add_derived_metrics(numbers);
            }
        for (auto& [sc, by_model] : d.runs)
            for (auto& [m, v] : by_model) {
                v.trials = rows_by_run[v.run_id];
                auto it = by_run.find(v.run_id);
                if (it == by_run.end() || it->second.empty())
                    continue;
                auto trials = it->second;
                std::sort(trials.begin(), trials.end());
                v.chart_trial = trials[(trials.size() - 1) / 2].second;
            }
    }
    auto series_of = [&](const std::filesystem::path& file, auto member) -> result<void> {
        if (!std::filesystem::exists(file))
            return {};
        auto t = load::read_csv(file);
        if (!t)
            return t.err();
        std::map<std::string, run_view*> by_id;
        for (auto& [sc, by_model] : d.runs)
            for (auto& [m, v] : by_model)
                if (v.ran())
                    by_id[v.run_id] = &v;
        for (const auto& row : t->rows) {
            auto id_col = t->column(column::run_id);
            auto trial_col = t->column(column::trial);
            if (id_col < 0 || trial_col < 0 || std::size_t(id_col) >= row.size())
                return fail(file.string() + ": missing run_id or trial column");
            auto it = by_id.find(row[id_col]);
            if (it == by_id.end() || static_cast<unsigned>(to_number(row[trial_col])) != it->second->chart_trial)
                continue;
            std::map<std::string, double> values;
            // An empty cell is a figure the shape does not have (a ramp's users in an open run): absent, not 0.
            for (std::size_t i = 0; i < t->header.size() && i < row.size(); ++i)
                if (!row[i].empty() && t->header[i] != column::run_id && t->header[i] != column::scenario &&
                    t->header[i] != column::model && t->header[i] != column::arm)
                    values[t->header[i]] = to_number(row[i]);
            (it->second->*member).push_back(std::move(values));
        }
        return {};
    };
    if (auto r = series_of(paths.timeline, &run_view::timeline); !r)
        return r.err();
    if (auto r = series_of(load::server_timeline_path(dir, d.stem), &run_view::server_timeline); !r)
        return r.err();

    if (std::filesystem::exists(paths.context)) {
        std::ifstream in(paths.context);
        std::string line;
        std::map<std::string, std::string> by_id;
        std::map<std::string, std::string> scale_notes;
        std::map<std::string, bool> cpu_max_by_id;
        while (std::getline(in, line)) {
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (!j.is_object() || !j.contains("run_id"))
                continue;
            if (!j["run_id"].is_string())
                continue;
            auto id = j["run_id"].get<std::string>();
            if (!shown.count(id))
                continue;
            by_id[id] = line;
            cpu_max_by_id[id] = cpu_max_over_second(j);
            if (j.contains("scale") && j["scale"].is_object())
                scale_notes[id] = j["scale"].value("note", std::string{});
            // Older or hand-written lines may lack any field: absent reads as unknown.
            const auto s =
                j.contains("scenario") && j["scenario"].is_object() ? j["scenario"] : nlohmann::json::object();
            auto name = s.value("name", std::string{});
            d.descriptions[name] = s.value("description", std::string{});
            if (s.contains("server") && s["server"].is_object()) {
                const auto& srv = s["server"];
                std::string text;
                if (srv.value("downstream", std::string{"self"}) == "separate")
                    text = "separate downstream (" + srv.value("downstream_model", std::string{"loop"}) + ")";
                if (srv.contains("options") && srv["options"].is_object())
                    for (const auto& [k, v] : srv["options"].items())
                        text += (text.empty() ? "" : ", ") + ("--" + k) +
                                (v.is_string() && v.get<std::string>() != "true" ? " " + v.get<std::string>() : "");
                d.server_settings[name] = text;
            }
        }
        for (const auto& sc : d.scenarios)
            for (const auto& m : d.models) {
                auto it = d.runs[sc].find(m);
                if (it != d.runs[sc].end() && by_id.count(it->second.run_id)) {
                    d.contexts.push_back(by_id[it->second.run_id]);
                    it->second.context = by_id[it->second.run_id];
                    it->second.scale_note = scale_notes[it->second.run_id];
                    it->second.cpu_max_over_second = cpu_max_by_id[it->second.run_id];
                }
            }
        // A capacity search's context is its first step's.
        for (const auto& sc : d.capacity_scenarios)
            for (const auto& m : d.models)
                if (auto it = d.capacity[sc].find(m); it != d.capacity[sc].end() && by_id.count(it->second.run_id))
                    d.contexts.push_back(by_id[it->second.run_id]);
    }

    // The latency distribution of every trial merged: exact, as the histograms share one configuration.
    if (std::filesystem::exists(paths.histograms)) {
        auto records = load::read_histograms(paths.histograms);
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
                return fail(paths.histograms.string() + ": run " + r.run_id + ": " + m.err().message);
        }
        for (auto& [sc, by_arm] : d.runs)
            for (auto& [a, v] : by_arm) {
                if (auto it = merged.find({v.run_id, "latency"}); it != merged.end())
                    v.latency_spectrum = spectrum_of(it->second);
                if (auto it = merged.find({v.run_id, "service"}); it != merged.end())
                    v.service_spectrum = spectrum_of(it->second);
            }
    }
    return d;
}

void add_scenario_files(suite_data& s, const std::filesystem::path& scenario_dir)
{
    for (const auto& name : s.scenarios) {
        auto sc = load::load_named_scenario(scenario_dir, name);
        if (!sc)
            continue;  // a scenario renamed or removed since: the recorded settings are all there is
        if (!s.descriptions.count(name))
            s.descriptions[name] = sc->description;
        const run_view* ran = nullptr;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, name, m); v && v->ran()) {
                ran = v;
                break;
            }
        if (!ran)
            continue;
        auto get = [&](std::string_view c) { return ran->text(c); };
        std::string file_duration =
            sc->load.kind == load::shape::burst ? get(column::duration) : load::format_duration(sc->load.length);
        auto file_warmup = load::format_duration(sc->warmup);
        auto file_trials = std::to_string(sc->trials);
        if (file_duration != get(column::duration) || file_warmup != get(column::warmup) ||
            file_trials != get(column::trials)) {
            s.file_settings[name] = (sc->load.kind == load::shape::burst ? std::string{} : file_duration + ", ") +
                                    "warm-up " + file_warmup + ", " + file_trials + " trial(s)";
            // Which way each setting that differs went: all one way is shorter or longer, else different.
            std::set<int> ways;
            auto way = [&](double ran, double file) {
                if (ran >= 0 && file >= 0 && ran != file)  // a setting not recorded (older results) says nothing
                    ways.insert(ran < file ? -1 : 1);
            };
            auto seconds = [](const std::string& text) {
                auto d = load::parse_duration(text);
                return d ? std::chrono::duration<double>(*d).count() : -1.0;
            };
            if (sc->load.kind != load::shape::burst)
                way(seconds(get(column::duration)), seconds(file_duration));
            way(seconds(get(column::warmup)), seconds(file_warmup));
            way(get(column::trials).empty() ? -1.0 : to_number(get(column::trials)), double(sc->trials));
            s.file_change[name] = ways.size() != 1    ? settings_change::different
                                  : *ways.begin() < 0 ? settings_change::shorter
                                                      : settings_change::longer;
        }
    }
}

const run_view* find_run(const suite_data& s, const std::string& scenario, const std::string& model)
{
    auto sc = s.runs.find(scenario);
    if (sc == s.runs.end())
        return nullptr;
    auto it = sc->second.find(model);
    return it == sc->second.end() ? nullptr : &it->second;
}

bool any_ran(const suite_data& s, const std::string& scenario)
{
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran())
            return true;
    return false;
}

std::set<std::string> scales_of(const suite_data& s, const std::string& scenario)
{
    std::set<std::string> factors;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran())
            factors.insert(load::format_scale(v->scale()));
    return factors;
}

std::string scale_suffix(const suite_data& s, const std::string& scenario)
{
    auto factors = scales_of(s, scenario);
    if (factors.size() == 1 && *factors.begin() == "1")
        return {};
    std::string out;
    for (const auto& f : factors)
        out += (out.empty() ? " (at " : ", ") + f;
    return out.empty() ? out : out + " scale)";
}

bool cpu_max_over_second(std::string_view context_json)
{
    return cpu_max_over_second(nlohmann::json::parse(context_json, nullptr, false));
}

}  // namespace execbench::report
