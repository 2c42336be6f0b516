#include "execbench/report/suite_page/suite_page.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/report/chart_data/chart_hash.hpp"
#include "execbench/report/chart_data/scenario_chart.hpp"
#include "execbench/report/judge/winners.hpp"
#include "execbench/report/page/markdown.hpp"
#include "execbench/report/suite_page/capacity_section.hpp"
#include "execbench/report/suite_page/finding.hpp"
#include "execbench/report/suite_page/map_section.hpp"
#include "execbench/report/suite_page/parity_notes.hpp"
#include "execbench/report/suite_page/profile_section.hpp"
#include "execbench/report/suite_page/scenario_rows.hpp"
#include "execbench/report/word/provenance_text.hpp"
#include "execbench/report/word/verdict_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace execbench::report {

namespace metric = load::metric;

bullets grouped_notes(const std::vector<std::pair<std::string, std::string>>& arm_notes)
{
    std::vector<std::pair<std::string, std::string>> lines;  // arms, note
    for (const auto& arm_note : arm_notes) {
        const auto& [arm, note] = arm_note;
        // arm_note, not note, in the lambda: clang before 16 cannot capture a structured binding.
        auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.second == arm_note.second; });
        if (it == lines.end())
            lines.emplace_back(arm, note);
        else
            it->first += ", " + arm;
    }
    bullets out;
    for (const auto& [arms, note] : lines)
        out.items.push_back(arms + ": " + note);
    return out;
}

namespace {

/// "?" for a field a context did not record.
std::string known(const std::string& text)
{
    return text.empty() ? std::string("?") : text;
}

/// The machine as the summary names it: its model, CPUs, memory and clock.
std::string machine_text(const load::machine_context& m)
{
    std::string machine = known(m.cpu_model) + " (" + std::to_string(m.cpu_count) + " CPUs";
    if (m.memory_mb > 0)
        machine += ", " + count(double(m.memory_mb) / 1024.0) + " GiB";
    // The clock tells apart hosts that share a model name (a VM's 2.1 and 2.6 GHz EPYCs): figures compare within
    // one only.
    if (m.cpu_mhz > 0)
        machine += ", " + count(m.cpu_mhz) + " MHz";
    return machine + ")";
}

/// Where each process was pinned, "none", or "not recorded".
std::string pinning_text(const std::optional<load::affinity_record>& a)
{
    if (!a)
        return "not recorded";
    std::string pins;
    for (const auto& [who, cpus] :
         {std::pair{"downstream", &a->downstream}, std::pair{"load", &a->load}, std::pair{"server", &a->server}})
        if (!cpus->empty())
            pins += (pins.empty() ? "" : ", ") + std::string(who) + " on CPU " + *cpus;
    return pins.empty() ? "none" : pins;
}

bool is_loopback(const std::string& url)
{
    return url.find("://127.") != std::string::npos || url.find("://localhost") != std::string::npos ||
           url.find("://[::1]") != std::string::npos;
}

std::string joined(const std::set<std::string>& v)
{
    return v.empty() ? std::string("–") : join({v.begin(), v.end()}, "; ");
}

/// "0.1" or "0.1–2.3".
std::string range_text(const std::vector<double>& v)
{
    auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *lo == *hi ? fixed(*lo, 1) : fixed(*lo, 1) + "–" + fixed(*hi, 1);
}

}  // namespace

context_summary summarize_contexts(const std::vector<load::run_context>& contexts)
{
    std::set<std::string> machines, kernels, builds, revisions, generators, sharing, pinning;
    std::vector<double> loadavg, steal;
    context_summary c;
    for (const auto& x : contexts) {
        const auto& m = x.machine;
        if (c.first.empty() || x.started_at < c.first)
            c.first = x.started_at;
        if (c.last.empty() || x.started_at > c.last)
            c.last = x.started_at;
        machines.insert(machine_text(m));
        c.cores.insert(m.cpu_count);
        kernels.insert(known(m.kernel));
        builds.insert("execbench " + known(m.execbench_version) + ", " + known(m.build_type) + ", " +
                      known(m.compiler));
        revisions.insert(known(m.git_revision));
        auto generator = "bench-load, " + std::to_string(x.threads) + " thread(s)";
        if (x.url.empty()) {
            generators.insert(generator);
            sharing.insert("not recorded");
        } else {
            bool local = is_loopback(x.url);
            generators.insert(generator + ", " +
                              (local ? std::string{"on the server's machine (loopback)"} : "against " + x.url));
            sharing.insert(local ? "server and load generator on one machine" : "server alone (generator remote)");
        }
        if (x.scenario_used.server.downstream == "separate")
            c.separate_downstream = true;
        // Per-run figures are gathered into ranges below: one clause per run would bury the sentence.
        for (const auto& v : {m.loadavg_before, m.loadavg_after})
            if (v)
                loadavg.push_back(*v);
        if (m.steal_percent)
            steal.push_back(*m.steal_percent);
        pinning.insert(pinning_text(x.affinity));
    }
    c.machine = joined(machines);
    c.kernel = joined(kernels);
    c.build = joined(builds);
    c.revision = joined(revisions);
    c.revisions = revisions.size();
    c.generator = joined(generators);
    c.sharing = joined(sharing);
    if (!loadavg.empty())
        c.sharing += "; 1-minute load average " + range_text(loadavg) + " around the runs";
    if (!steal.empty())
        c.sharing += ", steal " + range_text(steal) + " %";
    if (c.separate_downstream)
        c.sharing += "; scenarios with a separate downstream run it on the same machine too";
    c.pinning = joined(pinning);
    return c;
}

namespace {

/// The load in words; `rates` replaces an open load's one rate when the arms ran at different ones.
std::string load_text(const run_view& v, const std::string& rates = {})
{
    namespace column = load::column;
    if (!v.shape)
        return {};
    std::string out(load::to_string(*v.shape));
    auto connections = count(v.number(column::connections));
    switch (*v.shape) {
    case load::shape::burst:
        out += ", " + count(v.number(column::requests)) + " requests on " + connections + " connections";
        break;
    case load::shape::closed: out += ", " + connections + " connections"; break;
    case load::shape::open:
        out += ", " + (rates.empty() ? count(v.number(column::rate)) : rates) + " req/s on " + connections +
               " connections";
        break;
    case load::shape::ramp: out += ", up to " + connections + " users"; break;
    }
    if (v.think.max.count() > 0)
        out += ", think " + v.think.text();
    return out;
}

/// Where and when, from the contexts of the runs shown.
void context_section(page& p, const suite_data& s, const report_paths& paths)
{
    auto c = summarize_contexts(s.contexts);
    std::vector<std::vector<std::string>> rows{
        {"runs started", (c.first.empty() ? "–" : c.first + " – " + c.last) +
                             (capacity_steps_text(s).empty() ? "" : "; " + capacity_steps_text(s))},
        {"machine", c.machine},
        {"kernel", c.kernel},
        {"build", c.build},
        {"revision", c.revision},
        {"provenance", provenance_rows_text(split_provenance({&s}))},
        {"load generator", c.generator},
        {"sharing", c.sharing},
        {"pinning", c.pinning},
    };
    if (auto order = order_text(s); !order.empty())
        rows.push_back({"order", order});
    if (auto reused = reused_rows_text(s); !reused.empty())
        rows.push_back({"reused rows", reused});
    p.add(text_table({"", ""}, rows));
    p.add(paragraph{
        "Figures are per-figure medians across trials (each column's median is taken on its own, so a p99 can "
        "exceed the max). Latency in milliseconds from the moment a request was issued (open shape: from its "
        "intended send time), successful requests only (\"–\" when none succeeded); service time from the "
        "actual send; RSS in MiB; CPU in percent of one core; counts are whole numbers (a median of two trials "
        "rounded half to even). A run is **noisy** when a key figure's trial range exceeds 20 % of its median. "
        "Raw data: [`" +
        raw_results_file(s) + "`](" + paths.results_link + "/" + s.name + "/" + raw_results_file(s) +
        ") and the files beside it; how to read them: [methodology](" + paths.methodology_link + ")."});
}

/// How the runs compare with their file, in a table cell: "ran shorter", "ran longer", or both ways.
std::string ran_text(settings_change c)
{
    return c == settings_change::different ? "ran shorter in some settings, longer in others"
                                           : "ran " + std::string(to_string(c));
}

void scenario_table(page& p, const suite_data& s)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto& sc : s.scenarios) {
        const run_view* any = nullptr;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran()) {
                any = v;
                break;
            }
        auto get = [&](std::string_view c) {
            auto text = any ? any->text(c) : std::string{};
            return text.empty() ? std::string{"–"} : text;
        };
        // A rate taken from each arm's capacity differs between arms: each is named.
        std::string rates;
        std::set<double> distinct;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran() && v->shape == load::shape::open) {
                distinct.insert(v->number(load::column::rate));
                rates += (rates.empty() ? "" : ", ") + count(v->number(load::column::rate)) + " (" + m + ")";
            }
        if (distinct.size() < 2)
            rates.clear();
        auto desc = s.descriptions.count(sc) ? s.descriptions.at(sc) : std::string{};
        auto server = s.server_settings.count(sc) ? s.server_settings.at(sc) : std::string{};
        std::vector<std::string> r{"[" + sc + "](#" + sc + ")",
                                   any ? load_text(*any, rates) + scale_suffix(s, sc) + tls_suffix(s, sc) : "–",
                                   any && get(load::column::shape) == "burst" ? "–" : get(load::column::duration),
                                   get(load::column::warmup), any ? get(load::column::trials) : "–"};
        if (!s.file_settings.empty())
            r.push_back(!any ? "–"
                        : s.file_settings.count(sc)
                            ? "**" + s.file_settings.at(sc) + "** (" + ran_text(s.file_change.at(sc)) + ")"
                            : "same");
        r.push_back(server.empty() ? "–" : server);
        r.push_back(desc.empty() ? "–" : desc);
        rows.push_back(std::move(r));
    }
    std::vector<std::string> header{"scenario", "load", "duration", "warm-up", "trials"};
    if (!s.file_settings.empty())
        header.push_back("scenario file");
    header.push_back("server");
    header.push_back("description");
    p.add(heading{2, "Scenarios"}).add(text_table(header, rows));
    if (!s.file_settings.empty())
        p.add(paragraph{
            "Runs shown in **bold** under \"scenario file\" differ from their scenario files (bench-suite "
            "overrides): *shorter* or *longer* when every setting that differs went that way (duration, warm-up, "
            "trials), else shorter in some and longer in others; an open loop that falls behind grows its latency with "
            "the trial length, so "
            "those figures would differ at the file's length."});
}

/// A run's ledger message as a reader reads it: bench-suite's "requests_unsent=150501 (max 150600)" and
/// "errors_reset=2" become "150,501 requests unsent (median of the trials; up to 150,600)" and "2 reset errors";
/// anything else is kept as written, once: a note each server run repeated is shown with its count.
std::string readable_message(const std::string& message)
{
    struct note {
        std::string text;
        std::string separator;  // the one that followed it
        unsigned times = 1;
    };
    std::vector<note> notes;  // in first-seen order
    for (auto& part : load::parse_message(message)) {
        auto text = std::move(part.text);
        if (const auto& f = part.figure) {
            bool errors = f->name != load::metric::requests_unsent;
            auto kind = errors ? f->name.substr(load::metric::errors_prefix.size()) : std::string{};
            std::replace(kind.begin(), kind.end(), '_', ' ');
            text = count(f->median) + (errors ? " " + kind + " errors" : std::string{" requests unsent"});
            if (f->max)
                text += " (median of the trials; up to " + count(*f->max) + ")";
        }
        auto seen = std::find_if(notes.begin(), notes.end(), [&](const note& n) { return n.text == text; });
        if (seen != notes.end())
            ++seen->times;
        else
            notes.push_back({std::move(text), std::move(part.separator)});
    }
    std::string out;
    for (std::size_t i = 0; i < notes.size(); ++i) {
        const auto& n = notes[i];
        out += n.text + (n.times > 1 ? " (" + std::to_string(n.times) + " times)" : "") +
               (i + 1 < notes.size() ? n.separator : "");
    }
    return out;
}

/// One scenario: the arms side by side, or why none ran.
page scenario_section(const suite_data& s, const winners_table& w, const std::string& sc, const report_paths& paths)
{
    page p;
    p.add(heading{3, sc});
    if (auto finding = finding_sentence(s, w, sc); !finding.empty())
        p.add(paragraph{finding});
    if (s.descriptions.count(sc))
        p.add(paragraph{s.descriptions.at(sc)});
    p.append(arm_notes(s, sc));
    if (!any_ran(s, sc)) {
        // Nothing to compare: only why each arm did not run.
        std::vector<std::pair<std::string, std::string>> why;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m))
                why.emplace_back(m, v->status == load::run_status::not_run && !v->message.empty()
                                        ? v->message
                                        : status_text(*v) + (v->message.empty() ? "" : ": " + v->message));
        if (!why.empty())
            p.add(grouped_notes(why));
        return p;
    }
    // Each arm's label once per distinct note: arms scaled or compressed alike share one paragraph.
    auto label_runs = [&](auto note_of, auto factor_of, auto text_of) {
        std::set<std::string> shown;
        for (const auto& m : s.models) {
            const auto* v = find_run(s, sc, m);
            auto note = v && v->context ? note_of(*v->context) : std::string{};
            if (v && v->ran() && factor_of(*v) != 1 && shown.insert(note).second)
                p.add(paragraph{text_of(note, factor_of(*v))});
        }
    };
    label_runs([](const load::run_context& c) { return c.scale_note; }, [](const run_view& v) { return v.scale; },
               [](const std::string& note, double f) {
                   return "**Scaled:** " + (note.empty() ? "run at " + load::format_scale(f) + " scale" : note) +
                          ". A run at this scale is " + load::scale_meaning(f) + ".";
               });
    label_runs([](const load::run_context& c) { return c.time_note; }, [](const run_view& v) { return v.time_scale; },
               [](const std::string& note, double f) {
                   return "**Compressed:** " + (note.empty() ? "run in " + load::format_scale(f) + " of its time" : note) +
                          ": " + load::time_meaning(f) + ".";
               });
    if (auto tls = tls_suffix(s, sc); !tls.empty())
        p.add(paragraph{"**Over TLS:** every figure here was measured" + tls +
                        ", TLS 1.3 unless a client asked for 1.2; the connections' handshakes are counted in the "
                        "table (full and resumed) and their connect times include them."});
    if (scales_of(s, sc).size() > 1)
        p.add(paragraph{"**Not compared:** the arms ran at different scales" + scale_suffix(s, sc) +
                        ", so they measured different loads; no verdicts are drawn for this scenario."});
    std::vector<std::string> header{""};
    header.insert(header.end(), s.models.begin(), s.models.end());
    p.add(text_table(header, scenario_rows(s, sc)));
    std::vector<std::pair<std::string, std::string>> messages;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, sc, m); v && !v->message.empty())
            messages.emplace_back(m, readable_message(v->message));
    auto notes = grouped_notes(messages);
    std::string above;  // arms whose p99 or p99.9 shows above their max
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, sc, m);
            v && v->ran() && v->number(metric::requests_ok) > 0 &&
            std::max(v->number(metric::latency_millis_p99), v->number(metric::latency_millis_p999)) >
                v->number(metric::latency_millis_max))
            above += (above.empty() ? "" : ", ") + m;
    if (!above.empty())
        notes.items.push_back(above + ": a percentile above max: each figure is the median of its own trials, and a "
                                      "percentile is the top of its histogram bucket (within 0.1 %).");
    if (!notes.items.empty())
        p.add(std::move(notes));
    p.add(chart_ref{sc, s.name + "/" + chart_name(sc), fnv1a_hex(scenario_chart_data(s, sc).dump())});
    p.append(profile_section(s, sc, paths));
    return p;
}

}  // namespace

page suite_page(const suite_data& s, const report_paths& paths)
{
    page p;
    p.add(heading{1, "Results: `" + s.name + "` suite"});
    // The folder as read: a results folder given directly is not <root>/<name>.
    p.add(comment{"Generated by bench-report from " + s.dir.lexically_normal().generic_string() +
                  (s.dir.has_filename() ? "/" : "") + ". Do not edit: rerun the suite and `bench-report`."});
    context_section(p, s, paths);
    auto w = rank(figures_of(s), s.models);
    if (!s.scenarios.empty()) {  // a suite of capacity searches only has neither
        scenario_table(p, s);
        p.append(winners_section(s, w, paths.methodology_link));
    }
    p.append(map_section(s, paths));
    p.append(capacity_section(s, paths));
    if (!s.scenarios.empty())
        p.add(heading{2, "Per scenario"});
    for (const auto& sc : s.scenarios)
        p.append(scenario_section(s, w, sc, paths));
    return p;
}

std::string suite_markdown(const suite_data& s, const report_paths& paths)
{
    return to_markdown(suite_page(s, paths));
}

}  // namespace execbench::report
