#include "execbench/report/chart_data/winners_chart.hpp"

#include "execbench/report/judge/winners.hpp"
#include "execbench/report/word/verdict_text.hpp"

#include <algorithm>

namespace execbench::report {

nlohmann::json winners_chart_data(const suite_data& s)
{
    auto w = rank(figures_of(s), s.models);
    if (w.decided + w.ties == 0)
        return nullptr;
    nlohmann::json j;
    j["kind"] = "winners";
    j["title"] = s.name + " suite: winner and runner-up per metric (95 % bootstrap intervals)";
    j["all_arms"] = s.models;
    j["scenarios"] = w.scenarios;
    j["metrics"] = nlohmann::json::array();
    for (const auto& rule : winner_metrics())
        j["metrics"].push_back(rule.label + (rule.direction == better::higher ? " ↑" : " ↓"));
    // Per metric and scenario: the verdict, the runner-up (the arm the winner leads by least) and that lead.
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& rule : winner_metrics()) {
        nlohmann::json row = nlohmann::json::array();
        for (const auto& sc : w.scenarios) {
            nlohmann::json cell = {{"winner", nullptr}, {"runner_up", nullptr}, {"lead_percent", nullptr}};
            auto by_metric = w.cells.find(sc);
            const cell_verdict* v = nullptr;
            if (by_metric != w.cells.end())
                if (auto it = by_metric->second.find(rule.column); it != by_metric->second.end())
                    v = &it->second;
            if (!v || (v->kind != verdict::winner && v->kind != verdict::shared && v->kind != verdict::tie)) {
                cell["state"] = "none";
            } else if (v->kind == verdict::tie) {
                cell["state"] = "tie";
            } else if (v->kind == verdict::shared) {
                cell["state"] = "shared";
                cell["leaders"] = v->leaders;
            } else {
                cell["state"] = "won";
                cell["winner"] = v->winner;
                if (const auto* p = deciding_pair(*v, rule); p && p->by_failures) {
                    // Won because every other arm failed: there is no measured lead to print, only who failed.
                    cell["state"] = "won_by_failures";
                    cell["failed"] = v->demoted();
                } else if (p) {
                    // The lead as "how many times better, minus one": 2× either way reads 100 %.
                    double r = p->ratio.ratio > 0 ? p->ratio.ratio : 1.0;
                    cell["runner_up"] = p->first == v->winner ? p->second : p->first;
                    cell["lead_percent"] = (std::max(r, 1.0 / r) - 1.0) * 100.0;
                }
            }
            row.push_back(cell);
        }
        cells.push_back(row);
    }
    j["cells"] = cells;
    return j;
}

}  // namespace execbench::report
