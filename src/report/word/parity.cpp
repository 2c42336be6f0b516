#include "execbench/report/word/parity.hpp"

#include <map>
#include <set>
#include <vector>

namespace execbench::report {

namespace {

/// Health fields that describe the run rather than the server's settings: the model differs by design, the
/// downstream URL by its port, the rest by the moment it was read.
const std::set<std::string>& not_settings()
{
    static const std::set<std::string> names{"status", "model", "inFlight", "version", "address", "downstream"};
    return names;
}

/// The contexts of runs in a suite's arms (lines written before arms existed name none).
std::vector<const load::run_context*> contexts_with_arms(const suite_data& s)
{
    std::vector<const load::run_context*> out;
    for (const auto& c : s.contexts)
        if (!c.arm.name.empty())
            out.push_back(&c);
    return out;
}

}  // namespace

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
    // arm → setting → value, from the context of the run shown for each arm.
    std::map<std::string, std::map<std::string, std::string>> settings;
    for (const auto* c : contexts_with_arms(s)) {
        if (c->scenario_used.name != scenario)
            continue;
        for (const auto& [k, v] : c->server.health_fields())
            if (!not_settings().count(k))
                settings[c->arm.name][k] = v;
    }
    page p;
    if (settings.empty())
        return p;
    std::set<std::string> keys;
    for (const auto& [arm, kv] : settings)
        for (const auto& [k, v] : kv)
            keys.insert(k);
    bullets differ;
    for (const auto& k : keys) {
        std::set<std::string> values;
        std::string line;
        for (const auto& [arm, kv] : settings) {
            auto it = kv.find(k);
            auto v = it == kv.end() ? std::string("–") : it->second;
            values.insert(v);
            line += (line.empty() ? "" : ", ") + arm + " " + v;
        }
        if (values.size() > 1)
            differ.items.push_back("`" + k + "`: " + line);
    }
    if (settings.size() >= 2 && differ.items.empty())
        p.add(paragraph{"Server settings (from /health) are the same for every arm, model aside."});
    else if (settings.size() >= 2)
        p.add(paragraph{"Server settings that differ between arms (from each server's /health):"})
            .add(std::move(differ));
    auto by_arm = s.runs.find(scenario);
    if (by_arm != s.runs.end())
        for (const auto& [arm, v] : by_arm->second) {
            auto bound = v.number("generator_bound_trials");
            if (bound > 0)
                p.add(paragraph{
                    "**" + arm + "**: " + std::to_string(static_cast<long>(bound)) + " of " +
                    std::to_string(static_cast<long>(v.number("trials"))) +
                    " trial(s) generator-bound (the load generator, not the server, was the bottleneck); " +
                    (bound < v.number("trials") ? "left out of the medians." : "all kept, so read with care.")});
        }
    return p;
}

}  // namespace execbench::report
