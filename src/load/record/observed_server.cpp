#include "execbench/load/record/observed_server.hpp"

#include <nlohmann/json.hpp>

namespace execbench::load {

std::map<std::string, std::string> observed_server::health_fields() const
{
    std::map<std::string, std::string> out;
    auto health = nlohmann::json::parse(health_json, nullptr, false);
    if (health.is_object())
        for (const auto& [k, v] : health.items())
            out[k] = v.is_string() ? v.get<std::string>() : v.dump();
    return out;
}

}  // namespace execbench::load
