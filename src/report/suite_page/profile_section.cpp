#include "execbench/report/suite_page/profile_section.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace execbench::report {

namespace metric = load::metric;

namespace {

/// A per-request figure: two decimals, three below 0.1 so a rare call still shows.
std::string per_request(double v)
{
    return v == 0 ? std::string{"0"} : fixed(v, v < 0.1 ? 3 : 2);
}

/// The system calls that matter in some arm, most frequent first, at most twelve; "other" (not counted by name) last.
std::vector<std::pair<std::string, double>> busiest_syscalls(const std::map<std::string, profile_view>& by_arm,
                                                             const std::vector<std::string>& arms)
{
    std::map<std::string, double> most;
    for (const auto& arm : arms)
        for (const auto& c : by_arm.at(arm).record.counts)
            if (c.kind == "syscall" && c.name != "all" && c.name != "other" && c.per_request >= 0.01)
                most[c.name] = std::max(most[c.name], c.per_request);
    std::vector<std::pair<std::string, double>> names(most.begin(), most.end());
    std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    names.resize(std::min<std::size_t>(names.size(), 12));
    names.emplace_back("other", 0);
    return names;
}

/// The functions with the most self time in each arm's profiled trial, rank by rank.
void top_functions_table(page& p, const std::map<std::string, profile_view>& by_arm,
                         const std::vector<std::string>& arms)
{
    std::size_t longest = 0;
    for (const auto& arm : arms)
        longest = std::max(longest, by_arm.at(arm).top.size());
    if (longest == 0)
        return;
    p.add(paragraph{"Top functions by self time (the innermost frame of a sample; share of the server's CPU samples "
                    "in the profiled trial):"});
    table top{{"#"}, {}};
    top.header.insert(top.header.end(), arms.begin(), arms.end());
    for (std::size_t i = 0; i < longest; ++i) {
        std::vector<cell> r{{std::to_string(i + 1), double(i + 1)}};
        for (const auto& arm : arms) {
            const auto& functions = by_arm.at(arm).top;
            r.push_back(i < functions.size()
                            ? cell{"`" + functions[i].function + "` " + fixed(functions[i].percent, 1) + " %",
                                   functions[i].percent}
                            : cell{"–"});
        }
        top.rows.push_back(std::move(r));
    }
    p.add(std::move(top));
}

}  // namespace

page profile_section(const suite_data& s, const std::string& sc, const report_paths& paths)
{
    page p;
    auto at = s.profiles.find(sc);
    if (at == s.profiles.end() || at->second.empty())
        return p;
    const auto& by_arm = at->second;
    std::vector<std::string> arms;
    for (const auto& m : s.models)
        if (by_arm.count(m))
            arms.push_back(m);
    p.add(heading{4, "Profile of " + sc + ": one extra trial under perf, not a result"});
    p.add(
        paragraph{"After the measured trials, one more per arm on a fresh server under `perf record` and `perf stat`, "
                  "its counts taken over exactly that trial and divided by its requests. perf slows the server, so "
                  "this trial is in no table, median or verdict above ([methodology](" +
                  paths.methodology_link + "#profiles))."});
    std::vector<std::vector<std::string>> rows;
    auto row = [&](const std::string& label, auto cell) {
        std::vector<std::string> r{label};
        for (const auto& arm : arms)
            r.push_back(cell(by_arm.at(arm).record, arm));
        rows.push_back(std::move(r));
    };
    auto count_cell = [](const load::profile_record& r, std::string_view kind, std::string_view name) {
        const auto* c = r.find(kind, name);
        // perf stat leaves out the calls never made: with its total there, a missing name is none of them.
        if (!c && kind == "syscall" && r.find("syscall", "all"))
            return std::string{"0"};
        return c ? per_request(c->per_request) : std::string{"–"};
    };
    row("run", [](const load::profile_record& r, const std::string&) { return "`" + r.run_id + "`"; });
    row("req/s profiled (× unprofiled median)", [&](const load::profile_record& r, const std::string& arm) {
        auto rps = r.trial(metric::requests_per_second);
        const auto* v = find_run(s, sc, arm);
        auto median = v && v->ran() ? v->number(metric::requests_per_second) : 0;
        return count(rps) + (median > 0 ? " (" + fixed(rps / median, 2) + "×)" : std::string{});
    });
    row("requests in the trial",
        [](const load::profile_record& r, const std::string&) { return count(r.trial("requests")); });
    row("CPU µs / request", [&](const load::profile_record& r, const std::string&) {
        const auto* c = r.find("cpu", "cpu_micros");
        return c ? fixed(c->per_request, 1) : std::string{"–"};
    });
    row("context switches / request (voluntary / involuntary)", [&](const load::profile_record& r, const std::string&) {
        return count_cell(r, "switches", "context_switches") + " (" + count_cell(r, "switches", "voluntary") + " / " +
               count_cell(r, "switches", "involuntary") + ")";
    });
    row("system calls / request",
        [&](const load::profile_record& r, const std::string&) { return count_cell(r, "syscall", "all"); });
    for (const auto& [name, top] : busiest_syscalls(by_arm, arms))
        row("`" + name + "` / request", [&, name = name](const load::profile_record& r, const std::string&) {
            return count_cell(r, "syscall", name);
        });
    row("flame graph", [&](const load::profile_record&, const std::string& arm) {
        return by_arm.at(arm).flame_graph
                   ? "[SVG](" + paths.results_link + "/" + s.name + "/profile/" + sc + "-" + arm + ".svg)"
                   : std::string{"–"};
    });
    std::vector<std::string> header{""};
    header.insert(header.end(), arms.begin(), arms.end());
    p.add(text_table(header, rows));
    top_functions_table(p, by_arm, arms);
    std::vector<std::pair<std::string, std::string>> notes;
    for (const auto& arm : arms)
        for (const auto& note : by_arm.at(arm).record.notes())
            notes.emplace_back(arm, note);
    if (!notes.empty())
        p.add(grouped_notes(notes));
    for (const auto& arm : arms)
        if (by_arm.at(arm).flame_graph)
            p.add(chart_ref{"flame graph of " + sc + " under " + arm + " (profiled trial, not a result)",
                            paths.results_link + "/" + s.name + "/profile/" + sc + "-" + arm + ".svg", ""});
    return p;
}

}  // namespace execbench::report
