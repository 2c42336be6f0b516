#include "execbench/report/report.hpp"

#include "execbench/report/winners.hpp"

#include "execbench/load/scale.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <sys/wait.h>

namespace execbench::report {

namespace {

std::string read_text(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

double to_number(const std::string& s)
{
    if (s.empty())
        return 0;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    return end == s.c_str() ? 0 : v;
}

const std::vector<std::string> known_models{"pool", "fiber", "loop"};

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

}  // namespace

double run_view::number(std::string_view column) const
{
    auto it = summary.find(std::string(column));
    return it == summary.end() ? 0 : to_number(it->second);
}

double run_view::scale() const
{
    auto it = summary.find("scale");
    return it == summary.end() || it->second.empty() ? 1 : to_number(it->second);
}

std::vector<std::filesystem::path> suite_dirs(const std::filesystem::path& results_root)
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(results_root, ec)) {
        if (!e.is_directory())
            continue;
        auto name = e.path().filename().string();
        if (std::filesystem::exists(e.path() / (name + ".csv")) ||
            std::filesystem::exists(e.path() / (name + "-runs.csv")))
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

result<suite_data> read_suite(const std::filesystem::path& dir)
{
    suite_data d;
    d.dir = dir;
    d.name = dir.filename().string();
    auto paths = load::output_paths_for(dir / (d.name + ".csv"));
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
            summary_order.push_back(row["run_id"]);
            summary_by_run[row["run_id"]] = std::move(row);
        }
    }
    auto ledger_file = load::ledger_path(dir, d.name);
    if (std::filesystem::exists(ledger_file)) {
        auto ledger = load::read_ledger(ledger_file);
        if (!ledger)
            return ledger.err();
        for (const auto& e : *ledger) {
            note_scenario(e.scenario);
            models_seen.insert(e.model);
            run_view v;
            v.scenario = e.scenario;
            v.model = e.model;
            v.status = e.status;
            v.message = e.message;
            v.run_id = e.run_id;
            if (auto it = summary_by_run.find(e.run_id); !e.run_id.empty() && it != summary_by_run.end())
                v.summary = it->second;
            d.runs[e.scenario][e.model] = std::move(v);   // later lines replace earlier ones
        }
    } else {
        // Plain bench-load results: every summary row is a run; the last one of a scenario × model counts.
        for (const auto& id : summary_order) {
            const auto& row = summary_by_run[id];
            run_view v;
            v.scenario = row.at("scenario");
            v.model = row.at("model");
            v.run_id = id;
            v.summary = row;
            bool errors = to_number(row.at("requests_error")) > 0 || row.at("partial") == "1";
            v.status = errors ? load::run_status::errors : load::run_status::ok;
            note_scenario(v.scenario);
            models_seen.insert(v.model);
            d.runs[v.scenario][v.model] = std::move(v);
        }
    }
    for (const auto& m : known_models)
        if (models_seen.count(m))
            d.models.push_back(m);
    for (const auto& m : models_seen)
        if (std::find(known_models.begin(), known_models.end(), m) == known_models.end())
            d.models.push_back(m);

    std::set<std::string> shown;
    for (const auto& [sc, by_model] : d.runs)
        for (const auto& [m, v] : by_model)
            if (v.ran())
                shown.insert(v.run_id);

    // The charted trial: the median trial by latency p99.
    if (std::filesystem::exists(paths.trials)) {
        auto t = load::read_csv(paths.trials);
        if (!t)
            return t.err();
        std::map<std::string, std::vector<std::pair<double, unsigned>>> by_run;
        for (auto& row : rows_of(*t))
            if (shown.count(row["run_id"]))
                by_run[row["run_id"]].emplace_back(to_number(row["latency_millis_p99"]),
                                                   static_cast<unsigned>(to_number(row["trial"])));
        for (auto& [sc, by_model] : d.runs)
            for (auto& [m, v] : by_model) {
                auto it = by_run.find(v.run_id);
                if (it == by_run.end() || it->second.empty())
                    continue;
                auto trials = it->second;
                std::sort(trials.begin(), trials.end());
                v.chart_trial = trials[(trials.size() - 1) / 2].second;
            }
    }
    auto series_of = [&](const std::filesystem::path& file, auto member) -> result<bool> {
        if (!std::filesystem::exists(file))
            return true;
        auto t = load::read_csv(file);
        if (!t)
            return t.err();
        std::map<std::string, run_view*> by_id;
        for (auto& [sc, by_model] : d.runs)
            for (auto& [m, v] : by_model)
                if (v.ran())
                    by_id[v.run_id] = &v;
        for (const auto& row : t->rows) {
            auto id_col = t->column("run_id");
            auto trial_col = t->column("trial");
            if (id_col < 0 || trial_col < 0 || std::size_t(id_col) >= row.size())
                return fail(file.string() + ": missing run_id or trial column");
            auto it = by_id.find(row[id_col]);
            if (it == by_id.end() || static_cast<unsigned>(to_number(row[trial_col])) != it->second->chart_trial)
                continue;
            std::map<std::string, double> values;
            for (std::size_t i = 0; i < t->header.size() && i < row.size(); ++i)
                if (t->header[i] != "run_id" && t->header[i] != "scenario" && t->header[i] != "model")
                    values[t->header[i]] = to_number(row[i]);
            (it->second->*member).push_back(std::move(values));
        }
        return true;
    };
    if (auto r = series_of(paths.timeline, &run_view::timeline); !r)
        return r.err();
    if (auto r = series_of(load::server_timeline_path(dir, d.name), &run_view::server_timeline); !r)
        return r.err();

    if (std::filesystem::exists(paths.context)) {
        std::ifstream in(paths.context);
        std::string line;
        std::map<std::string, std::string> by_id;
        std::map<std::string, std::string> scale_notes;
        while (std::getline(in, line)) {
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (!j.is_object() || !j.contains("run_id"))
                continue;
            auto id = j["run_id"].get<std::string>();
            if (!shown.count(id))
                continue;
            by_id[id] = line;
            if (j.contains("scale") && j["scale"].is_object())
                scale_notes[id] = j["scale"].value("note", std::string{});
            const auto& s = j["scenario"];
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
                    it->second.scale_note = scale_notes[it->second.run_id];
                }
            }
    }
    return d;
}

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

namespace {

std::string num(double v, int decimals = 0)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// Milliseconds at a precision that suits their size.
std::string millis(double v)
{
    if (v >= 100)
        return num(v, 0);
    if (v >= 10)
        return num(v, 1);
    return num(v, 2);
}

/// Integers with thin grouping: 12,345.
std::string count(double v)
{
    auto s = num(std::round(v), 0);
    std::string out;
    int digits = 0;
    for (auto it = s.rbegin(); it != s.rend(); ++it) {
        if (digits > 0 && digits % 3 == 0 && *it != '-')
            out.insert(out.begin(), ',');
        out.insert(out.begin(), *it);
        if (*it != '-')
            ++digits;
    }
    return out;
}

std::string cell_escape(std::string s)
{
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

std::string status_text(const run_view& v)
{
    switch (v.status) {
    case load::run_status::ok: return "ok";
    case load::run_status::errors: return "**request errors**";
    case load::run_status::failed: return "**failed**";
    case load::run_status::not_run: return "not run";
    }
    return "?";
}

const run_view* find_run(const suite_data& s, const std::string& scenario, const std::string& model)
{
    auto sc = s.runs.find(scenario);
    if (sc == s.runs.end())
        return nullptr;
    auto it = sc->second.find(model);
    return it == sc->second.end() ? nullptr : &it->second;
}

std::string load_text(const run_view& v)
{
    auto get = [&](const char* c) {
        auto it = v.summary.find(c);
        return it == v.summary.end() ? std::string{} : it->second;
    };
    auto shape = get("shape");
    std::string out = shape;
    if (shape == "burst")
        out += ", " + count(to_number(get("requests"))) + " requests on " + count(to_number(get("connections"))) +
               " connections";
    else if (shape == "closed")
        out += ", " + count(to_number(get("connections"))) + " connections";
    else if (shape == "open")
        out += ", " + count(to_number(get("rate"))) + " req/s on " + count(to_number(get("connections"))) +
               " connections";
    else if (shape == "ramp")
        out += ", up to " + count(to_number(get("connections"))) + " users";
    if (!get("think").empty() && get("think") != "0ms" && get("think") != "0s")
        out += ", think " + get("think");
    return out;
}

/// Figures for the winners table: the models that ran.
/// The scale factors of the runs of a scenario that ran, formatted.
std::set<std::string> scales_of(const suite_data& s, const std::string& scenario)
{
    std::set<std::string> factors;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran())
            factors.insert(load::format_scale(v->scale()));
    return factors;
}

std::vector<scenario_figures> figures_of(const suite_data& s)
{
    std::vector<scenario_figures> out;
    for (const auto& sc : s.scenarios) {
        scenario_figures f;
        f.scenario = sc;
        // Runs at different scales measured different loads: no winner between them.
        bool comparable = scales_of(s, sc).size() <= 1;
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            if (!v || !v->ran() || !comparable)
                continue;
            for (const auto& rule : winner_metrics())
                f.values[m][rule.column] = v->number(rule.column);
            f.had_errors[m] = v->number("requests_error") > 0;
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::string chart_name(const std::string& scenario) { return scenario + ".png"; }

/// " (at 0.97 scale)" when any run of the scenario was scaled, naming each factor; "" otherwise.
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

nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario)
{
    nlohmann::json j;
    j["kind"] = "scenario";
    j["title"] = s.name + " / " + scenario + scale_suffix(s, scenario);
    j["models"] = nlohmann::json::array();
    for (const auto& m : s.models) {
        const auto* v = find_run(s, scenario, m);
        if (!v || !v->ran())
            continue;
        nlohmann::json mj;
        mj["model"] = m;
        mj["trial"] = v->chart_trial;
        if (v->scale() != 1)
            mj["scale"] = v->scale();
        auto col = [](const std::vector<std::map<std::string, double>>& rows, const char* name) {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& r : rows) {
                auto it = r.find(name);
                a.push_back(it == r.end() ? 0.0 : it->second);
            }
            return a;
        };
        mj["second"] = col(v->timeline, "second");
        mj["ok"] = col(v->timeline, "requests_ok");
        mj["errors"] = col(v->timeline, "requests_error");
        mj["p50"] = col(v->timeline, "latency_millis_p50");
        mj["p90"] = col(v->timeline, "latency_millis_p90");
        mj["p99"] = col(v->timeline, "latency_millis_p99");
        mj["server_second"] = col(v->server_timeline, "second");
        mj["cpu"] = col(v->server_timeline, "server_cpu_percent");
        mj["rss"] = col(v->server_timeline, "server_rss_mb");
        j["models"].push_back(mj);
    }
    return j;
}

bool any_ran(const suite_data& s, const std::string& scenario)
{
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, scenario, m); v && v->ran())
            return true;
    return false;
}

}  // namespace

std::string suite_markdown(const suite_data& s, const report_paths& paths)
{
    std::ostringstream md;
    md << "# Results: `" << s.name << "` suite\n\n";
    md << "<!-- Generated by bench-report from " << (paths.results_label / s.name).generic_string()
       << "/. Do not edit: rerun the suite and `bench-report`. -->\n\n";

    // Where and when, from the contexts of the runs shown.
    std::set<std::string> machines, kernels, builds, revisions, threads;
    std::string first, last;
    for (const auto& line : s.contexts) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object())
            continue;
        auto at = j.value("started_at", std::string{});
        if (first.empty() || at < first)
            first = at;
        if (last.empty() || at > last)
            last = at;
        const auto& m = j["machine"];
        machines.insert(m.value("cpu_model", std::string{"?"}) + " (" +
                        std::to_string(m.value("cpu_count", 0u)) + " CPUs)");
        kernels.insert(m.value("kernel", std::string{"?"}));
        const auto& e = j["execbench"];
        builds.insert("execbench " + e.value("version", std::string{"?"}) + ", " +
                      e.value("build_type", std::string{"?"}) + ", " + e.value("compiler", std::string{"?"}));
        revisions.insert(e.value("git_revision", std::string{"?"}));
        threads.insert(std::to_string(j["load_settings"].value("threads", 1u)));
    }
    auto joined = [](const std::set<std::string>& v) {
        std::string out;
        for (const auto& x : v)
            out += (out.empty() ? "" : "; ") + x;
        return out.empty() ? std::string("–") : out;
    };
    md << "| | |\n|---|---|\n";
    md << "| ran | " << (first.empty() ? "–" : first + " – " + last) << " |\n";
    md << "| machine | " << cell_escape(joined(machines)) << " |\n";
    md << "| kernel | " << cell_escape(joined(kernels)) << " |\n";
    md << "| build | " << cell_escape(joined(builds)) << " |\n";
    md << "| revision | " << cell_escape(joined(revisions)) << " |\n";
    md << "| load generator | bench-load engine in bench-suite, " << joined(threads)
       << " thread(s), on the same machine as the server |\n\n";
    md << "Figures are medians across trials. Latency in milliseconds from the moment a request was issued (open "
          "shape: from its intended send time), successful requests only; RSS in MiB; CPU in percent of one core. "
          "A run is **noisy** when a key figure's trial range exceeds 20 % of its median.\n\n";

    // Scenario table.
    md << "## Scenarios\n\n| scenario | load | duration | warm-up | trials | server | description |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const auto& sc : s.scenarios) {
        const run_view* any = nullptr;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran()) {
                any = v;
                break;
            }
        auto get = [&](const char* c) {
            if (!any)
                return std::string{"–"};
            auto it = any->summary.find(c);
            return it == any->summary.end() || it->second.empty() ? std::string{"–"} : it->second;
        };
        auto desc = s.descriptions.count(sc) ? s.descriptions.at(sc) : std::string{};
        auto server = s.server_settings.count(sc) ? s.server_settings.at(sc) : std::string{};
        md << "| [" << sc << "](#" << sc << ") | " << (any ? cell_escape(load_text(*any) + scale_suffix(s, sc)) : "–")
           << " | "
           << (any && get("shape") == "burst" ? "–" : get("duration")) << " | " << get("warmup") << " | "
           << (any ? get("trials") : "–") << " | " << cell_escape(server.empty() ? "–" : server) << " | "
           << cell_escape(desc.empty() ? "–" : desc) << " |\n";
    }
    md << "\n";

    // Winners.
    auto figures = figures_of(s);
    auto w = rank(figures, s.models);
    md << "## Winners\n\n";
    md << "Per scenario and metric the best model, as in the Loom/WebFlux study: requests ok, requests per second "
          "and sockets higher-is-better, everything else lower-is-better; a model with any request error ranks "
          "below every model without; equal to three significant digits is undecided. Models that failed or did "
          "not run take no part.\n\n";
    md << "| model | wins | share |\n|---|---|---|\n";
    for (const auto& m : w.ranking())
        md << "| " << m << " | " << w.wins[m] << " | " << num(100.0 * w.share(m), 0) << " % |\n";
    auto total = w.decided + w.undecided;
    md << "| undecided | " << w.undecided << " | " << num(total ? 100.0 * w.undecided / total : 0.0, 0)
       << " % |\n\n";
    if (total > 0)
        md << "![winners](" << s.name << "/winners.png)\n\n";
    md << "| scenario |";
    for (const auto& m : s.models)
        md << " " << m << " wins |";
    md << " undecided |\n|---|";
    for (std::size_t i = 0; i < s.models.size(); ++i)
        md << "---|";
    md << "---|\n";
    for (const auto& sc : w.scenarios) {
        std::map<std::string, unsigned> per;
        unsigned und = 0;
        for (const auto& [col, model] : w.winner[sc]) {
            if (model.empty())
                ++und;
            else
                ++per[model];
        }
        md << "| " << sc << scale_suffix(s, sc) << " |";
        for (const auto& m : s.models)
            md << " " << per[m] << " |";
        md << " " << und << " |\n";
    }
    md << "\n<details><summary>Winner per metric</summary>\n\n| metric |";
    for (const auto& sc : w.scenarios)
        md << " " << sc << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < w.scenarios.size(); ++i)
        md << "---|";
    md << "\n";
    for (const auto& rule : winner_metrics()) {
        md << "| " << rule.label << (rule.direction == better::higher ? " ↑" : " ↓") << " |";
        for (const auto& sc : w.scenarios) {
            auto it = w.winner[sc].find(rule.column);
            md << " " << (it == w.winner[sc].end() ? "–" : it->second.empty() ? "tie" : it->second) << " |";
        }
        md << "\n";
    }
    md << "\n</details>\n\n";

    // Per scenario, the models side by side.
    md << "## Per scenario\n";
    for (const auto& sc : s.scenarios) {
        md << "\n### " << sc << "\n\n";
        if (s.descriptions.count(sc))
            md << s.descriptions.at(sc) << "\n\n";
        if (!any_ran(s, sc)) {
            // Nothing to compare: only why each model did not run.
            for (const auto& m : s.models)
                if (const auto* v = find_run(s, sc, m))
                    md << "- " << m << ": "
                       << (v->status == load::run_status::not_run && !v->message.empty()
                               ? v->message
                               : status_text(*v) + (v->message.empty() ? "" : ": " + v->message))
                       << "\n";
            continue;
        }
        std::set<std::string> notes_shown;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran() && v->scale() != 1 &&
                                                    notes_shown.insert(v->scale_note).second)
                md << "**Scaled:** " << (v->scale_note.empty() ? "run at " + load::format_scale(v->scale()) + " scale"
                                                               : v->scale_note)
                   << ". A run at this scale is " << load::scale_meaning(v->scale()) << ".\n\n";
        if (scales_of(s, sc).size() > 1)
            md << "**Not compared:** the models ran at different scales" << scale_suffix(s, sc)
               << ", so they measured different loads; no winners are counted for this scenario.\n\n";
        md << "| |";
        for (const auto& m : s.models)
            md << " " << m << " |";
        md << "\n|---|";
        for (std::size_t i = 0; i < s.models.size(); ++i)
            md << "---|";
        md << "\n";
        auto row = [&](const std::string& label, auto cell) {
            md << "| " << label << " |";
            for (const auto& m : s.models) {
                const auto* v = find_run(s, sc, m);
                md << " " << (v && v->ran() ? cell(*v) : std::string{"–"}) << " |";
            }
            md << "\n";
        };
        md << "| status |";
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            md << " " << (v ? status_text(*v) : std::string{"–"}) << " |";
        }
        md << "\n";
        bool background = false, unsent = false;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran()) {
                background |= v->number("background_requests_ok") + v->number("background_requests_error") > 0;
                unsent |= v->number("requests_unsent") > 0;
            }
        if (!scale_suffix(s, sc).empty())
            row("scale", [](const run_view& v) { return load::format_scale(v.scale()); });
        row("trials", [](const run_view& v) { return num(v.number("trials")); });
        row("requests ok / error", [](const run_view& v) {
            return count(v.number("requests_ok")) + " / " + count(v.number("requests_error"));
        });
        row("error classes", [](const run_view& v) {
            std::string out;
            for (const auto& [k, val] : v.summary)
                if (k.rfind("errors_", 0) == 0 && to_number(val) > 0)
                    out += (out.empty() ? "" : ", ") + k.substr(7) + " " + count(to_number(val));
            return out.empty() ? std::string{"–"} : out;
        });
        if (unsent)
            row("unsent (open shape)", [](const run_view& v) { return count(v.number("requests_unsent")); });
        row("wall (ms)", [](const run_view& v) { return millis(v.number("wall_millis")); });
        row("req/s", [](const run_view& v) { return count(v.number("requests_per_second")); });
        row("req/s per second p50 / max", [](const run_view& v) {
            return count(v.number("per_second_requests_p50")) + " / " + count(v.number("per_second_requests_max"));
        });
        row("latency p50 (ms)", [](const run_view& v) { return millis(v.number("latency_millis_p50")); });
        row("latency p90 (ms)", [](const run_view& v) { return millis(v.number("latency_millis_p90")); });
        row("latency p99 (ms)", [](const run_view& v) { return millis(v.number("latency_millis_p99")); });
        row("latency max (ms)", [](const run_view& v) { return millis(v.number("latency_millis_max")); });
        if (background)
            row("background ok / error, p50 (ms)", [](const run_view& v) {
                return count(v.number("background_requests_ok")) + " / " +
                       count(v.number("background_requests_error")) + ", " +
                       millis(v.number("background_latency_millis_p50"));
            });
        row("RSS avg / max (MiB)", [](const run_view& v) {
            return num(v.number("server_rss_mb_avg"), 1) + " / " + num(v.number("server_rss_mb_max"), 1);
        });
        row("CPU avg / max (%)", [](const run_view& v) {
            return num(v.number("server_cpu_percent_avg")) + " / " + num(v.number("server_cpu_percent_max"));
        });
        row("threads max", [](const run_view& v) { return count(v.number("server_threads_max")); });
        row("ctx switches vol / invol", [](const run_view& v) {
            return count(v.number("server_voluntary_switches")) + " / " +
                   count(v.number("server_involuntary_switches"));
        });
        row("sockets max", [](const run_view& v) { return count(v.number("server_sockets_max")); });
        row("load generator CPU (%)", [](const run_view& v) { return num(v.number("loadgen_cpu_percent")); });
        row("spread p99 (ms)", [](const run_view& v) {
            return millis(v.number("latency_millis_p99_trial_min")) + " – " +
                   millis(v.number("latency_millis_p99_trial_max"));
        });
        row("spread req/s", [](const run_view& v) {
            return count(v.number("requests_per_second_trial_min")) + " – " +
                   count(v.number("requests_per_second_trial_max"));
        });
        row("noisy", [](const run_view& v) {
            auto it = v.summary.find("noisy");
            if (it == v.summary.end() || it->second != "1")
                return std::string{"no"};
            auto which = v.summary.count("noisy_metrics") ? v.summary.at("noisy_metrics") : std::string{};
            return "**yes** (" + which + ")";
        });
        std::string notes;
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            if (v && !v->message.empty())
                notes += "- " + m + ": " + v->message + "\n";
        }
        if (!notes.empty())
            md << "\n" << notes;
        if (any_ran(s, sc)) {
            auto data = scenario_chart_data(s, sc).dump();
            md << "\n![" << sc << "](" << s.name << "/" << chart_name(sc) << ")\n<!-- chart data " << fnv1a_hex(data)
               << " -->\n";
        }
    }
    return md.str();
}

report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths)
{
    report_output out;
    for (const auto& s : suites) {
        out.files.push_back({paths.docs_dir / (s.name + ".md"), suite_markdown(s, paths)});
        std::string list;
        for (const auto& sc : s.scenarios) {
            if (!any_ran(s, sc))
                continue;
            auto data = scenario_chart_data(s, sc).dump();
            chart_job job{paths.docs_dir / s.name / chart_name(sc), data, fnv1a_hex(data)};
            list += chart_name(sc) + " " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        auto w = rank(figures_of(s), s.models);
        if (w.decided + w.undecided > 0) {
            nlohmann::json j;
            j["kind"] = "winners";
            j["title"] = s.name + " suite: wins per scenario (Loom/WebFlux study rules)";
            j["models"] = s.models;
            j["scenarios"] = w.scenarios;
            nlohmann::json per = nlohmann::json::object();
            for (const auto& m : s.models) {
                nlohmann::json a = nlohmann::json::array();
                for (const auto& sc : w.scenarios) {
                    unsigned n = 0;
                    for (const auto& [col, model] : w.winner[sc])
                        n += model == m ? 1 : 0;
                    a.push_back(n);
                }
                per[m] = a;
            }
            j["wins"] = per;
            nlohmann::json und = nlohmann::json::array();
            for (const auto& sc : w.scenarios) {
                unsigned n = 0;
                for (const auto& [col, model] : w.winner[sc])
                    n += model.empty() ? 1 : 0;
                und.push_back(n);
            }
            j["undecided"] = und;
            auto data = j.dump();
            chart_job job{paths.docs_dir / s.name / "winners.png", data, fnv1a_hex(data)};
            list += "winners.png " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        out.chart_lists.push_back({paths.docs_dir / s.name / "charts.txt", list});
    }

    // README headline: one row per scenario of the headline suites; p99 and req/s per model.
    std::ostringstream rb;
    rb << "\n<!-- Generated by bench-report from " << paths.results_label.generic_string()
       << "/: do not edit between the markers. -->\n\n";
    rb << "Median of the trials on this repository's 2-core machine (generator and server share it); each cell: "
          "p99 latency · requests per second (· requests that failed, or that an open-loop rate could not send). Details, "
          "spreads and charts in [docs/results/](docs/results/); how to read them in "
          "[docs/methodology.md](docs/methodology.md).\n\n";
    bool any = false;
    bool any_scaled = false;
    for (const auto& name : paths.headline_suites) {
        auto it = std::find_if(suites.begin(), suites.end(), [&](const auto& s) { return s.name == name; });
        if (it == suites.end())
            continue;
        const auto& s = *it;
        if (!any) {
            rb << "| suite | scenario |";
            for (const auto& m : known_models)
                rb << " " << m << " |";
            rb << "\n|---|---|";
            for (std::size_t i = 0; i < known_models.size(); ++i)
                rb << "---|";
            rb << "\n";
            any = true;
        }
        for (const auto& sc : s.scenarios) {
            rb << "| [" << s.name << "](docs/results/" << s.name << ".md) | " << sc << " |";
            for (const auto& m : known_models) {
                const auto* v = find_run(s, sc, m);
                std::string cell = "–";
                if (v && v->ran()) {
                    auto p99 = v->number("latency_millis_p99");
                    cell = v->number("requests_ok") == 0 ? std::string{"no answer"}
                           : p99 >= 10'000               ? num(p99 / 1000.0, 1) + " s"
                                                          : millis(p99) + " ms";
                    cell += " · " + count(v->number("requests_per_second"));
                    if (v->number("requests_error") > 0)
                        cell += " · **" + count(v->number("requests_error")) + " errors**";
                    if (v->number("requests_unsent") > 0)
                        cell += " · " + count(v->number("requests_unsent")) + " unsent";
                    if (v->scale() != 1) {
                        cell += " · *at " + load::format_scale(v->scale()) + " scale*";
                        any_scaled = true;
                    }
                } else if (v) {
                    cell = v->status == load::run_status::not_run ? "not run" : "failed";
                }
                rb << " " << cell << " |";
            }
            rb << "\n";
        }
    }
    if (any_scaled)
        rb << "\n*at F scale*: the scenario ran with its users, connections and rates times F to fit this machine's "
              "open-file limits; from " << load::format_scale(load::representative_scale)
           << " up it stands for the scenario, below that it is a smaller load and not the scenario "
              "([scaled runs](docs/methodology.md#scaled-runs)).\n";
    if (any) {
        rb << "\nOverall winners (Loom/WebFlux study rules, share of metric × scenario cells):";
        for (const auto& name : paths.headline_suites) {
            auto it = std::find_if(suites.begin(), suites.end(), [&](const auto& s) { return s.name == name; });
            if (it == suites.end())
                continue;
            auto w = rank(figures_of(*it), it->models);
            rb << " " << name << ":";
            bool first = true;
            for (const auto& m : w.ranking()) {
                rb << (first ? " " : ", ") << m << " " << num(100.0 * w.share(m), 0) << " %";
                first = false;
            }
            auto total = w.decided + w.undecided;
            rb << ", undecided " << num(total ? 100.0 * w.undecided / total : 0.0, 0) << " %";
            rb << ";";
        }
        rb << "\n";
    } else {
        rb << "No results yet: run `bench-suite --suite reactive` and `bench-report`.\n";
    }
    rb << "\n";
    out.readme_block = rb.str();
    return out;
}

std::string replace_headline(std::string_view readme, std::string_view block)
{
    constexpr std::string_view begin = "<!-- results:begin -->";
    constexpr std::string_view end = "<!-- results:end -->";
    auto b = readme.find(begin);
    auto e = b == std::string_view::npos ? std::string_view::npos : readme.find(end, b);
    std::string out;
    if (b == std::string_view::npos || e == std::string_view::npos) {
        out = std::string(readme);
        if (!out.empty() && out.back() != '\n')
            out += '\n';
        if (!out.empty())
            out += '\n';
        out += std::string(begin) + std::string(block) + std::string(end) + "\n";
        return out;
    }
    out = std::string(readme.substr(0, b + begin.size()));
    out += block;
    out += readme.substr(e);
    return out;
}

namespace {

result<bool> write_text(const std::filesystem::path& p, const std::string& content)
{
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out)
        return fail(p.string() + ": cannot write");
    return true;
}

std::string shell_quote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

}  // namespace

result<bool> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python)
{
    for (const auto& f : out.files)
        if (auto w = write_text(f.path, f.content); !w)
            return w;
    std::string current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    if (auto w = write_text(readme, replace_headline(current, out.readme_block)); !w)
        return w;
    if (python.empty())
        return true;

    // Only charts whose data changed are drawn again.
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& c : out.charts) {
        bool fresh = false;
        for (const auto& l : out.chart_lists) {
            if (l.path.parent_path() != c.png.parent_path() || !std::filesystem::exists(l.path) ||
                !std::filesystem::exists(c.png))
                continue;
            auto text = read_text(l.path);
            fresh = text.find(c.png.filename().string() + " " + c.hash + "\n") != std::string::npos;
        }
        if (fresh)
            continue;
        std::error_code ec;
        std::filesystem::create_directories(c.png.parent_path(), ec);
        jobs.push_back({{"png", c.png.string()}, {"data", nlohmann::json::parse(c.data_json)}});
    }
    if (!jobs.empty()) {
        auto jobs_file = std::filesystem::temp_directory_path() / ("execbench-charts-" + fnv1a_hex(jobs.dump()) + ".json");
        if (auto w = write_text(jobs_file, jobs.dump()); !w)
            return w;
        auto cmd = shell_quote(python) + " " + shell_quote(chart_script.string()) + " " + shell_quote(jobs_file.string());
        int rc = std::system(cmd.c_str());
        std::error_code ec;
        std::filesystem::remove(jobs_file, ec);
        if (rc != 0)
            return fail("chart script failed (" + cmd + "), exit status " +
                        std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) +
                        "; is python3-matplotlib installed? (--no-charts skips the charts)");
    }
    for (const auto& l : out.chart_lists)
        if (auto w = write_text(l.path, l.content); !w)
            return w;
    return true;
}

std::vector<std::string> stale_files(const report_output& out, const std::filesystem::path& readme)
{
    std::vector<std::string> stale;
    auto check = [&](const generated_file& f) {
        if (!std::filesystem::exists(f.path))
            stale.push_back(f.path.string() + " (missing)");
        else if (read_text(f.path) != f.content)
            stale.push_back(f.path.string() + " (differs)");
    };
    for (const auto& f : out.files)
        check(f);
    for (const auto& f : out.chart_lists)
        check(f);
    for (const auto& c : out.charts)
        if (!std::filesystem::exists(c.png))
            stale.push_back(c.png.string() + " (missing)");
    auto current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    if (replace_headline(current, out.readme_block) != current)
        stale.push_back(readme.string() + " (headline block differs)");
    return stale;
}

}  // namespace execbench::report
