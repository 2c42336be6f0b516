#include "execbench/report/charts.hpp"

#include <cstdint>
#include <cstdio>

namespace execbench::report {

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

std::string chart_name(const std::string& scenario) { return scenario + ".png"; }

nlohmann::json scenario_chart_data(const suite_data& s, const std::string& scenario)
{
    nlohmann::json j;
    j["kind"] = "scenario";
    j["title"] = s.name + " / " + scenario;
    j["models"] = nlohmann::json::array();
    for (const auto& m : s.models) {
        const auto* v = find_run(s, scenario, m);
        if (!v || !v->ran())
            continue;
        nlohmann::json mj;
        mj["model"] = m;
        mj["trial"] = v->chart_trial;
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

nlohmann::json winners_chart_data(const suite_data& s)
{
    auto w = rank(figures_of(s), s.models);
    if (w.decided + w.undecided == 0)
        return nullptr;
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
    return j;
}

}  // namespace execbench::report
