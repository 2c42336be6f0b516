#include "execbench/report/suite_page/parity_notes.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/judge/settings_parity.hpp"

#include <set>

namespace execbench::report {

std::string order_text(const suite_data& s)
{
    std::set<std::string> orders, pins;
    for (const auto* c : contexts_with_arms(s)) {
        if (c->order)
            orders.insert((c->order->kind.empty() ? std::string("?") : c->order->kind) + ", seed " +
                          std::to_string(c->order->seed));
        if (const auto& a = c->affinity) {
            auto cpus = [](const std::string& v) { return v.empty() ? std::string("any") : v; };
            pins.insert("server " + cpus(a->server) + ", generator " + cpus(a->load) + ", downstream " +
                        cpus(a->downstream));
        }
    }
    if (orders.empty())
        return {};
    std::string out;
    for (const auto& o : orders)
        out += (out.empty() ? "" : "; ") + o;
    for (const auto& p : pins)
        out += "; CPUs: " + p;
    return out;
}

page arm_notes(const suite_data& s, const std::string& scenario)
{
    page p;
    auto settings = settings_parity_of(s, scenario);
    if (settings.by_arm.empty())
        return p;
    bullets differ;
    for (const auto& k : settings.differing) {
        std::string line;
        for (const auto& [arm, kv] : settings.by_arm) {
            auto it = kv.find(k);
            line += (line.empty() ? "" : ", ") + arm + " " + (it == kv.end() ? std::string("–") : it->second);
        }
        differ.items.push_back("`" + k + "`: " + line);
    }
    if (settings.by_arm.size() >= 2 && differ.items.empty())
        p.add(paragraph{"Server settings (from /health) are the same for every arm, model aside."});
    else if (settings.by_arm.size() >= 2)
        p.add(paragraph{"Server settings that differ between arms (from each server's /health):"})
            .add(std::move(differ));
    auto by_arm = s.runs.find(scenario);
    if (by_arm != s.runs.end())
        for (const auto& [arm, v] : by_arm->second) {
            auto bound = v.number(load::column::generator_bound_trials);
            if (bound > 0)
                p.add(paragraph{"**" + arm + "**: " + std::to_string(static_cast<long>(bound)) + " of " +
                                std::to_string(static_cast<long>(v.number(load::column::trials))) +
                                " trial(s) generator-bound (the load generator, not the server, was the bottleneck); " +
                                (bound < v.number(load::column::trials) ? "left out of the medians."
                                                                        : "all kept, so read with care.")});
        }
    return p;
}

}  // namespace execbench::report
