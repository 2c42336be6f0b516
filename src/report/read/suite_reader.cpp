#include "execbench/report/read/suite_reader.hpp"

#include "suite_files.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/measurement.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/report/read/trial_figures.hpp"
#include "execbench/stats/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>

namespace execbench::report {

namespace metric = load::metric;
namespace column = load::column;

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

std::string think_time::text() const
{
    return min == max ? load::format_duration(min) : load::format_duration(min) + ".." + load::format_duration(max);
}

namespace {

/// A think cell as the results write it: "0s", "2s" or "2s..4s"; none when it is not one.
think_time think_of(std::string_view text)
{
    auto dots = text.find("..");
    auto min = load::parse_duration(text.substr(0, dots));
    auto max = dots == std::string_view::npos ? min : load::parse_duration(text.substr(dots + 2));
    if (text.empty() || !min || !max)
        return {};
    return {*min, *max};
}

}  // namespace

void run_view::take_summary(load::summary_row row)
{
    summary = std::move(row);
    figures.clear();
    for (const auto& [name, cell] : summary)
        if (!cell.empty())
            figures.emplace(name, load::number_of(cell));
    shape = load::parse_shape(text(column::shape));
    noisy = text(column::noisy) == "1";
    noisy_metrics.clear();
    for (auto which = text(column::noisy_metrics); !which.empty();) {
        auto semi = which.find(';');
        noisy_metrics.push_back(which.substr(0, semi));
        which = semi == std::string::npos ? std::string{} : which.substr(semi + 1);
    }
    partial = text(column::partial) == "1";
    think = think_of(text(column::think));
    // A row read from a file always has one (load/results/upgrade); one made in code without it ran as written.
    scale = figure(column::scale).value_or(1);
    time_scale = figure(column::time_scale).value_or(1);
    tls = text(column::tls) == "1";
}

void run_view::set_cell(std::string_view column, std::string text)
{
    auto row = std::move(summary);
    row[std::string(column)] = std::move(text);
    take_summary(std::move(row));
}

std::optional<double> run_view::figure(std::string_view column) const
{
    auto it = figures.find(column);
    return it == figures.end() ? std::nullopt : std::optional<double>(it->second);
}

double run_view::number(std::string_view column) const
{
    return figure(column).value_or(0);
}

std::string run_view::text(std::string_view column) const
{
    return load::cell_of(summary, column);
}


namespace {

/// The results sets in `dir`: the stems of its `-runs.csv` and `-trials.csv` files, and of its capacity searches'
/// `-capacity.csv` (bench-load --capacity --out x.csv and a capacity suite write no other).
std::set<std::string> stems_in(const std::filesystem::path& dir)
{
    std::set<std::string> stems;
    std::error_code ec;
    auto capacity_suffix = load::capacity_paths_for("x.csv").summary.string().substr(1);
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        auto file = e.path().filename().string();
        for (std::string_view suffix :
             {std::string_view{"-runs.csv"}, std::string_view{"-trials.csv"}, std::string_view{capacity_suffix}})
            if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
                stems.insert(file.substr(0, file.size() - suffix.size()));
    }
    return stems;
}

}  // namespace

bool run_view::refused_every_request() const
{
    return load::refused_every_request(
        number(load::metric::requests_ok), number(load::metric::requests_error),
        number(load::metric::errors_column(load::to_string(load::error_class::http_4xx))) +
            number(load::metric::errors_column(load::to_string(load::error_class::http_5xx))));
}

std::string run_view::not_a_result() const
{
    if (!ran() || refused_every_request())
        return {};
    auto bound = number(load::column::generator_bound_trials);
    if (status == load::run_status::generator_bound || (bound > 0 && bound >= number(load::column::trials)))
        return "generator-bound";
    bool per_second_checked = std::any_of(timeline.begin(), timeline.end(), [](const auto& row) {
        return row.count(load::metric::loadgen_cpu_percent) > 0;
    });
    // Without a timeline there is nothing to tell either way (results written by hand or by tests).
    if (shape == load::shape::ramp && !timeline.empty() && !per_second_checked)
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
    return "holds no results: neither a <name>.csv with its <name>-trials.csv (bench-load --out, bench-suite --out), "
           "nor a <name>-capacity.csv (bench-load --capacity --out), nor folders holding one (bench-suite "
           "--results-dir)";
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
    std::set<std::string> arms;
    if (auto r = detail::read_latest_runs(d, paths, run_selector, arms); !r)
        return r.err();
    if (auto r = detail::read_capacity_searches(d, arms); !r)
        return r.err();
    if (auto r = detail::read_profiles(d); !r)
        return r.err();
    detail::order_arms(d, arms);
    auto shown = detail::shown_runs(d);
    if (auto r = detail::read_reused(d, shown); !r)
        return r.err();
    if (auto r = detail::read_trials(d, paths.trials, shown); !r)
        return r.err();
    if (auto r = detail::read_series(d, paths.timeline, load::row_kind::timeline, &run_view::timeline); !r)
        return r.err();
    if (auto r = detail::read_series(d, load::server_timeline_path(dir, d.stem), load::row_kind::server_timeline,
                                     &run_view::server_timeline);
        !r)
        return r.err();
    if (auto r = detail::read_contexts(d, paths.context, shown); !r)
        return r.err();
    if (auto r = detail::read_spectra(d, paths.histograms, shown); !r)
        return r.err();
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
                if (ran >= 0 && file >= 0 && ran != file)  // a setting not recorded (an empty cell) says nothing
                    ways.insert(ran < file ? -1 : 1);
            };
            auto seconds = [](const std::string& text) {
                auto d = load::parse_duration(text);
                return d ? std::chrono::duration<double>(*d).count() : -1.0;
            };
            if (sc->load.kind != load::shape::burst)
                way(seconds(get(column::duration)), seconds(file_duration));
            way(seconds(get(column::warmup)), seconds(file_warmup));
            way(get(column::trials).empty() ? -1.0 : load::number_of(get(column::trials)), double(sc->trials));
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

std::vector<const load::capacity_record*> searches_of(const suite_data& s, const std::string& scenario)
{
    std::vector<const load::capacity_record*> out;
    auto it = s.capacity.find(scenario);
    if (it == s.capacity.end())
        return out;
    for (const auto& m : s.models)
        if (auto r = it->second.find(m); r != it->second.end())
            out.push_back(&r->second);
    return out;
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
            factors.insert(load::format_scale(v->scale) +
                           (v->time_scale == 1 ? "" : " in " + load::format_scale(v->time_scale) + " of the time"));
    return factors;
}

std::string scale_suffix(const suite_data& s, const std::string& scenario)
{
    auto factors = scales_of(s, scenario);
    if (factors.size() == 1 && *factors.begin() == "1")
        return {};
    // "(at 0.5, 1 scale)"; with a compressed run, each factor in full: "(at 1 scale in 0.2 of the time)".
    bool compressed = std::any_of(factors.begin(), factors.end(), [](const auto& f) { return f.find(' ') != f.npos; });
    std::string out;
    for (const auto& f : factors) {
        auto in = f.find(' ');
        out += (out.empty() ? " (at " : ", ") + f.substr(0, in) +
               (compressed ? " scale" + (in == std::string::npos ? "" : f.substr(in)) : "");
    }
    return out + (compressed ? ")" : " scale)");
}

std::string tls_label(const run_view& v)
{
    if (!v.tls)
        return {};
    const auto key = v.context && v.context->scenario_used.tls ? v.context->scenario_used.tls_key : std::string{};
    // As certificates name them, the curve or the modulus: "p256" -> P-256, "rsa<bits>" -> RSA-<bits>.
    const auto shown = key == "p256" ? std::string("P-256") : key.starts_with("rsa") ? "RSA-" + key.substr(3) : key;
    return shown.empty() ? "over TLS" : "over TLS (" + shown + ")";
}

std::string tls_suffix(const suite_data& s, const std::string& scenario)
{
    std::set<std::string> labels;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran() && v->tls)
            labels.insert(tls_label(*v));
    std::string out;
    for (const auto& l : labels)
        out += (out.empty() ? " " : ", ") + l;
    return out;
}

}  // namespace execbench::report
