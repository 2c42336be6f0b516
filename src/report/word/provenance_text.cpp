#include "execbench/report/word/provenance_text.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace execbench::report {

namespace {

std::string implementations_text(const provenance_split& p)
{
    std::vector<std::string> parts;
    for (const auto& [model, id] : p.implementations)
        parts.push_back(model + " " + id);
    return parts.empty() ? std::string{} : "; model implementations " + join(parts, ", ");
}

std::string how(const provenance_split& p, const differing_run& d)
{
    auto text = difference(p.common, d.from);
    if (!d.implementation.empty())
        text += ", " + d.arm + " implementation " + d.implementation;
    return text;
}

}  // namespace

std::string provenance_rows_text(const provenance_split& p)
{
    if (p.runs == 0)
        return "–";
    if (p.one())
        return "one: every run from " + describe(p.common) + implementations_text(p);
    // Rows that differ the same way read as one clause: "io-600 × pool, fiber: sources 1a2b…".
    std::vector<std::pair<std::string, std::vector<std::string>>> by_how;
    for (const auto& d : p.differing) {
        auto text = how(p, d);
        auto it = std::find_if(by_how.begin(), by_how.end(), [&](const auto& g) { return g.first == text; });
        if (it == by_how.end())
            it = by_how.insert(by_how.end(), {text, {}});
        it->second.push_back(d.scenario + " × " + d.arm);
    }
    std::vector<std::string> clauses;
    for (const auto& [text, rows] : by_how)
        clauses.push_back(join(rows, ", ") + ": " + text);
    return std::to_string(p.agreeing) + " of " + std::to_string(p.runs) + " runs from " + describe(p.common) +
           implementations_text(p) + "; the others differ: " + join(clauses, "; ");
}

namespace {

// A copied row compared with arms run hours later carries the machine's drift between them (a VM's speed moved by a
// fifth to a third within a day here), which the interleaving inside a step cannot remove: say how far apart.
std::string hours_apart_text(const std::string& copied_id, const std::vector<std::string>& beside_ids)
{
    auto copied = parse_utc_timestamp(copied_id);
    std::optional<double> hours;
    for (const auto& id : beside_ids)
        if (auto t = parse_utc_timestamp(id); t && copied) {
            auto apart = std::difftime(*t, *copied) / 3600.0;
            hours = hours ? std::max(*hours, apart) : apart;
        }
    if (!hours || std::abs(*hours) < 1.0)
        return {};
    char text[64];
    std::snprintf(text, sizeof text, " (%.0f h %s them)", std::abs(*hours), *hours > 0 ? "before" : "after");
    return text;
}

}  // namespace

std::string reused_rows_text(const suite_data& s)
{
    std::vector<std::string> clauses;
    // The fixed-rate scenarios in run order, then the capacity searches (a search files no ledger line).
    auto scenarios = s.scenarios;
    for (const auto& sc : s.capacity_scenarios)
        if (std::find(scenarios.begin(), scenarios.end(), sc) == scenarios.end())
            scenarios.push_back(sc);
    for (const auto& sc : scenarios) {
        auto it = s.reused.find(sc);
        if (it == s.reused.end())
            continue;
        // Arms copied from the same folder read as one clause; the arms that ran here are what they were not beside.
        std::vector<std::pair<std::string, std::vector<std::string>>> by_source;
        std::vector<std::string> beside, beside_ids, copied_ids;
        for (const auto& arm : s.models) {
            auto r = it->second.find(arm);
            if (r == it->second.end()) {
                const auto* run = find_run(s, sc, arm);
                bool searched = s.capacity.count(sc) && s.capacity.at(sc).count(arm);
                if (run || searched) {
                    beside.push_back(arm);
                    beside_ids.push_back(run ? run->run_id : s.capacity.at(sc).at(arm).run_id);
                }
                continue;
            }
            copied_ids.push_back(r->second.run_id);
            auto source = "the " + r->second.from + " folder's runs (" +
                          (r->second.study.empty() ? std::string("--reuse-from") : "same study") + ")";
            auto g = std::find_if(by_source.begin(), by_source.end(), [&](const auto& x) { return x.first == source; });
            if (g == by_source.end())
                g = by_source.insert(by_source.end(), {source, {}});
            g->second.push_back(arm);
        }
        // The earliest copied run stands for the clause: the widest gap is what a reader must allow for.
        auto earliest = copied_ids.empty() ? std::string{} : *std::min_element(copied_ids.begin(), copied_ids.end());
        for (const auto& [source, arms] : by_source)
            clauses.push_back(sc + " × " + join(arms, ", ") + ": " + source + ", not re-run" +
                              (beside.empty()
                                   ? std::string{}
                                   : " beside " + join(beside, ", ") + hours_apart_text(earliest, beside_ids)));
    }
    return join(clauses, "; ");
}

std::string provenance_caption(const provenance_split& p)
{
    if (p.runs == 0)
        return {};
    if (p.one())
        return "one provenance: every run from " + describe(p.common);
    // Per suite, what differs rather than each provenance: a README lists suites, a page lists rows.
    std::vector<std::string> suites;
    for (const auto& suite : p.differing_suites()) {
        std::size_t n = 0;
        std::set<provenance> kinds;
        std::set<std::string> sources, builds, cpus, kernels;
        for (const auto& d : p.differing) {
            if (d.suite != suite)
                continue;
            ++n;
            kinds.insert(d.from);
            if (d.from.sources != p.common.sources)
                sources.insert(d.from.sources);
            if (d.from.build != p.common.build)
                builds.insert(d.from.build);
            if (d.from.cpu != p.common.cpu)
                cpus.insert(d.from.cpu);
            if (d.from.kernel != p.common.kernel)
                kernels.insert(d.from.kernel);
        }
        std::vector<std::string> what;
        auto aspect = [&](const std::set<std::string>& values, const std::string& one, const std::string& many) {
            if (values.size() == 1)
                what.push_back(one + *values.begin());
            else if (values.size() > 1)
                what.push_back(std::to_string(values.size()) + " " + many);
        };
        aspect(sources, "", "other sources");
        aspect(builds, "build ", "other builds");
        aspect(cpus, "", "other CPUs or clocks");
        aspect(kernels, "kernel ", "other kernels");
        suites.push_back(suite + " (" + std::to_string(n) + (n == 1 ? " run" : " runs") + ": " + join(what, ", ") +
                         ")");
    }
    return std::to_string(p.agreeing) + " of " + std::to_string(p.runs) + " runs from " + describe(p.common) +
           "; † marks figures from runs of another provenance, in " + join(suites, ", ") +
           " (each page lists its rows)";
}

}  // namespace execbench::report
