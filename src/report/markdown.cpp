#include "execbench/report/markdown.hpp"

#include "execbench/report/charts.hpp"
#include "execbench/report/winners.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace execbench::report {

std::string num(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string millis(double v)
{
    if (v >= 100)
        return num(v, 0);
    if (v >= 10)
        return num(v, 1);
    return num(v, 2);
}

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

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows)
{
    auto line = [](const std::vector<std::string>& cells) {
        std::string out = "|";
        for (const auto& c : cells)
            out += c.empty() ? " |" : " " + c + " |";
        return out + "\n";
    };
    std::string out = line(header) + "|";
    for (std::size_t i = 0; i < header.size(); ++i)
        out += "---|";
    out += "\n";
    for (const auto& r : rows)
        out += line(r);
    return out;
}

namespace {

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

/// Where and when, from the contexts of the runs shown.
void context_section(std::ostringstream& md, const suite_data& s)
{
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
    md << markdown_table({"", ""}, {
                                       {"ran", first.empty() ? "–" : first + " – " + last},
                                       {"machine", cell_escape(joined(machines))},
                                       {"kernel", cell_escape(joined(kernels))},
                                       {"build", cell_escape(joined(builds))},
                                       {"revision", cell_escape(joined(revisions))},
                                       {"load generator", "bench-load engine in bench-suite, " + joined(threads) +
                                                              " thread(s), on the same machine as the server"},
                                   });
    md << "\n";
    md << "Figures are medians across trials. Latency in milliseconds from the moment a request was issued (open "
          "shape: from its intended send time), successful requests only; RSS in MiB; CPU in percent of one core. "
          "A run is **noisy** when a key figure's trial range exceeds 20 % of its median.\n\n";
}

void scenario_table(std::ostringstream& md, const suite_data& s)
{
    std::vector<std::vector<std::string>> rows;
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
        rows.push_back({"[" + sc + "](#" + sc + ")", any ? cell_escape(load_text(*any)) : "–",
                        any && get("shape") == "burst" ? "–" : get("duration"), get("warmup"),
                        any ? get("trials") : "–", cell_escape(server.empty() ? "–" : server),
                        cell_escape(desc.empty() ? "–" : desc)});
    }
    md << "## Scenarios\n\n"
       << markdown_table({"scenario", "load", "duration", "warm-up", "trials", "server", "description"}, rows)
       << "\n";
}

void winners_section(std::ostringstream& md, const suite_data& s)
{
    auto w = rank(figures_of(s), s.models);
    md << "## Winners\n\n";
    md << "Per scenario and metric the best model, as in the Loom/WebFlux study: requests ok, requests per second "
          "and sockets higher-is-better, everything else lower-is-better; a model with any request error ranks "
          "below every model without; equal to three significant digits is undecided. Models that failed or did "
          "not run take no part.\n\n";
    std::vector<std::vector<std::string>> share_rows;
    for (const auto& m : w.ranking())
        share_rows.push_back({m, std::to_string(w.wins[m]), num(100.0 * w.share(m), 0) + " %"});
    auto total = w.decided + w.undecided;
    share_rows.push_back({"undecided", std::to_string(w.undecided),
                          num(total ? 100.0 * w.undecided / total : 0.0, 0) + " %"});
    md << markdown_table({"model", "wins", "share"}, share_rows) << "\n";
    if (total > 0)
        md << "![winners](" << s.name << "/winners.png)\n\n";
    std::vector<std::string> header{"scenario"};
    for (const auto& m : s.models)
        header.push_back(m + " wins");
    header.push_back("undecided");
    std::vector<std::vector<std::string>> rows;
    for (const auto& sc : w.scenarios) {
        std::map<std::string, unsigned> per;
        unsigned und = 0;
        for (const auto& [col, model] : w.winner[sc]) {
            if (model.empty())
                ++und;
            else
                ++per[model];
        }
        std::vector<std::string> r{sc};
        for (const auto& m : s.models)
            r.push_back(std::to_string(per[m]));
        r.push_back(std::to_string(und));
        rows.push_back(std::move(r));
    }
    md << markdown_table(header, rows);
    std::vector<std::string> metric_header{"metric"};
    metric_header.insert(metric_header.end(), w.scenarios.begin(), w.scenarios.end());
    std::vector<std::vector<std::string>> metric_rows;
    for (const auto& rule : winner_metrics()) {
        std::vector<std::string> r{rule.label + (rule.direction == better::higher ? " ↑" : " ↓")};
        for (const auto& sc : w.scenarios) {
            auto it = w.winner[sc].find(rule.column);
            r.push_back(it == w.winner[sc].end() ? "–" : it->second.empty() ? "tie" : it->second);
        }
        metric_rows.push_back(std::move(r));
    }
    md << "\n<details><summary>Winner per metric</summary>\n\n"
       << markdown_table(metric_header, metric_rows) << "\n</details>\n\n";
}

/// One scenario: the models side by side, or why none ran.
void scenario_section(std::ostringstream& md, const suite_data& s, const std::string& sc)
{
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
        return;
    }
    std::vector<std::string> header{""};
    header.insert(header.end(), s.models.begin(), s.models.end());
    std::vector<std::vector<std::string>> rows;
    auto row = [&](const std::string& label, auto cell) {
        std::vector<std::string> r{label};
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            r.push_back(v && v->ran() ? cell(*v) : std::string{"–"});
        }
        rows.push_back(std::move(r));
    };
    {
        std::vector<std::string> r{"status"};
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            r.push_back(v ? status_text(*v) : std::string{"–"});
        }
        rows.push_back(std::move(r));
    }
    bool background = false, unsent = false;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, sc, m); v && v->ran()) {
            background |= v->number("background_requests_ok") + v->number("background_requests_error") > 0;
            unsent |= v->number("requests_unsent") > 0;
        }
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
    md << markdown_table(header, rows);
    std::string notes;
    for (const auto& m : s.models) {
        const auto* v = find_run(s, sc, m);
        if (v && !v->message.empty())
            notes += "- " + m + ": " + v->message + "\n";
    }
    if (!notes.empty())
        md << "\n" << notes;
    auto data = scenario_chart_data(s, sc).dump();
    md << "\n![" << sc << "](" << s.name << "/" << chart_name(sc) << ")\n<!-- chart data " << fnv1a_hex(data)
       << " -->\n";
}

}  // namespace

std::string suite_markdown(const suite_data& s, const report_paths& paths)
{
    std::ostringstream md;
    md << "# Results: `" << s.name << "` suite\n\n";
    md << "<!-- Generated by bench-report from " << (paths.results_label / s.name).generic_string()
       << "/. Do not edit: rerun the suite and `bench-report`. -->\n\n";
    context_section(md, s);
    scenario_table(md, s);
    winners_section(md, s);
    md << "## Per scenario\n";
    for (const auto& sc : s.scenarios)
        scenario_section(md, s, sc);
    return md.str();
}

}  // namespace execbench::report

