#include "execbench/report/chart_data/summary_chart.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/read/trial_figures.hpp"

#include <algorithm>

namespace execbench::report {

namespace metric = load::metric;

nlohmann::json summary_chart_data(const std::vector<suite_data>& suites)
{
    nlohmann::json j;
    j["kind"] = "summary";
    j["title"] = "latency p99 per scenario and arm (median of the trials, log scale)";
    j["failure_tolerance_percent"] = failure_tolerance * 100;
    std::vector<std::string> arms;
    j["suites"] = nlohmann::json::array();
    for (const auto& s : suites) {
        nlohmann::json suite{{"name", s.name}, {"scenarios", nlohmann::json::array()}, {"arms", s.models}};
        nlohmann::json p99 = nlohmann::json::object(), failed = nlohmann::json::object();
        for (const auto& m : s.models) {
            p99[m] = nlohmann::json::array();
            failed[m] = nlohmann::json::array();
        }
        for (const auto& sc : s.scenarios) {
            if (!any_ran(s, sc))
                continue;
            suite["scenarios"].push_back(sc + scale_suffix(s, sc) + tls_suffix(s, sc));
            for (const auto& m : s.models) {
                const auto* v = find_run(s, sc, m);
                // A generator-bound run or one awaiting re-measurement has no figure of the model's to draw.
                bool ran = v && v->ran() && v->number(metric::requests_ok) > 0 && v->not_a_result().empty();
                p99[m].push_back(ran ? nlohmann::json(v->number(metric::latency_millis_p99)) : nlohmann::json(nullptr));
                // Failed beyond the tolerance, or no run at all: either way its bar is no like-for-like figure.
                failed[m].push_back(!v || !v->ran() || failed_or_unsent(usable_trials(v->trials)) ||
                                    v->number(metric::requests_ok) == 0);
            }
        }
        if (suite["scenarios"].empty())
            continue;
        for (const auto& m : s.models)
            if (std::find(arms.begin(), arms.end(), m) == arms.end())
                arms.push_back(m);
        suite["p99"] = std::move(p99);
        suite["failed"] = std::move(failed);
        j["suites"].push_back(std::move(suite));
    }
    if (j["suites"].empty())
        return nullptr;
    // The execution models first, so each keeps the colour it has on the suites' own charts.
    std::stable_sort(arms.begin(), arms.end(), [](const std::string& a, const std::string& b) {
        auto rank = [](const std::string& x) {
            return std::find(known_models().begin(), known_models().end(), x) - known_models().begin();
        };
        return rank(a) < rank(b);
    });
    j["all_arms"] = arms;
    return j;
}

}  // namespace execbench::report
