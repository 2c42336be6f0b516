#include "execbench/report/judge/settings_parity.hpp"

#include <set>

namespace execbench::report {

namespace {

/// Health fields that describe the run rather than the server's settings: the model differs by design, the
/// downstream URL by its port, the rest by the moment it was read.
const std::set<std::string>& not_settings()
{
    static const std::set<std::string> names{"status", "model", "inFlight", "version", "address", "downstream"};
    return names;
}

}  // namespace

std::vector<const load::run_context*> contexts_with_arms(const suite_data& s)
{
    std::vector<const load::run_context*> out;
    for (const auto& c : s.contexts)
        if (!c.arm.name.empty())
            out.push_back(&c);
    return out;
}

settings_parity settings_parity_of(const suite_data& s, const std::string& scenario)
{
    settings_parity p;
    for (const auto* c : contexts_with_arms(s)) {
        if (c->scenario_used.name != scenario)
            continue;
        for (const auto& [k, v] : c->server.health_fields())
            if (!not_settings().count(k))
                p.by_arm[c->arm.name][k] = v;
    }
    std::set<std::string> keys;
    for (const auto& [arm, kv] : p.by_arm)
        for (const auto& [k, v] : kv)
            keys.insert(k);
    for (const auto& k : keys) {
        std::set<std::string> values;
        bool absent = false;
        for (const auto& [arm, kv] : p.by_arm) {
            auto it = kv.find(k);
            if (it == kv.end())
                absent = true;
            else
                values.insert(it->second);
        }
        if (values.size() + (absent ? 1 : 0) > 1)
            p.differing.push_back(k);
    }
    return p;
}

}  // namespace execbench::report
