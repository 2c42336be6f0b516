#include "execbench/report/judge/provenance.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace execbench::report {

namespace {

std::string or_unknown(const std::string& s)
{
    return s.empty() ? std::string("unknown") : s;
}

/// A run is one (scenario, arm, run id): its rounds share what produced it.
struct run_key {
    std::string suite, scenario, arm, run_id;
    auto operator<=>(const run_key&) const = default;
};

}  // namespace

provenance provenance_of(const load::run_context& c)
{
    const auto& m = c.machine;
    provenance p;
    p.sources = !m.source_digest.empty() ? "sources " + m.source_digest : "revision " + or_unknown(m.git_revision);
    p.build = or_unknown(m.build_type) + ", " + or_unknown(m.compiler);
    p.cpu = or_unknown(m.cpu_model) + (m.cpu_mhz > 0 ? " at " + grouped(static_cast<std::uint64_t>(std::llround(m.cpu_mhz))) + " MHz" : "");
    p.kernel = or_unknown(m.kernel);
    return p;
}

std::string implementation_of(const load::run_context& c)
{
    auto fields = c.server.health_fields();
    auto it = fields.find("implementation");
    return it == fields.end() ? std::string{} : it->second;
}

std::vector<std::string> provenance_split::differing_suites() const
{
    std::vector<std::string> out;
    for (const auto& d : differing)
        if (std::find(out.begin(), out.end(), d.suite) == out.end())
            out.push_back(d.suite);
    return out;
}

provenance_split split_provenance(const std::vector<const suite_data*>& suites)
{
    struct seen_run {
        provenance from;
        std::string model, implementation, started_at;
    };
    std::map<run_key, seen_run> runs;
    std::vector<run_key> order;
    for (const auto* s : suites)
        for (const auto& c : s->contexts) {
            run_key k{s->name, c.scenario_used.name, c.arm.name, c.run_id};
            if (runs.emplace(k, seen_run{provenance_of(c), c.arm.model, implementation_of(c), c.started_at}).second)
                order.push_back(k);
        }
    provenance_split out;
    out.runs = runs.size();
    if (runs.empty())
        return out;
    std::map<provenance, std::pair<std::size_t, std::string>> counts;  // → runs, newest start
    for (const auto& [k, r] : runs) {
        auto& [n, newest] = counts[r.from];
        ++n;
        newest = std::max(newest, r.started_at);
    }
    auto common = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second.first != b.second.first ? a.second.first < b.second.first : a.second.second < b.second.second;
    });
    out.common = common->first;
    out.agreeing = common->second.first;
    for (const auto& [k, r] : runs)
        if (r.from == out.common && !r.implementation.empty())
            out.implementations.emplace(r.model, r.implementation);
    for (const auto& k : order) {
        const auto& r = runs.at(k);
        if (r.from == out.common)
            continue;
        auto same = out.implementations.find(r.model);
        bool other_implementation =
            !r.implementation.empty() && same != out.implementations.end() && same->second != r.implementation;
        out.differing.push_back({k.suite, k.scenario, k.arm, r.from, other_implementation ? r.implementation : ""});
    }
    return out;
}

std::string describe(const provenance& p)
{
    return p.sources + " (" + p.build + "), " + p.cpu + ", kernel " + p.kernel;
}

std::string difference(const provenance& base, const provenance& other)
{
    std::vector<std::string> parts;
    if (other.sources != base.sources)
        parts.push_back(other.sources);
    if (other.build != base.build)
        parts.push_back("build " + other.build);
    if (other.cpu != base.cpu)
        parts.push_back(other.cpu);
    if (other.kernel != base.kernel)
        parts.push_back("kernel " + other.kernel);
    return join(parts, ", ");
}

}  // namespace execbench::report
