#include "execbench/report/word/compare_page.hpp"

#include "execbench/core/text.hpp"
#include "execbench/report/page/markdown.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace execbench::report {

page compare_page(const comparison& c)
{
    page p;
    p.add(heading{1, "Compare: " + c.old_label + " → " + c.new_label});
    p.add(paragraph{"Ratio NEW / OLD of the medians over the trials, with its 95 % percentile bootstrap interval. A "
                    "change counts only when the whole interval lies beyond ±" +
                    significant(c.threshold_percent, 4) + " %; *unchanged* when it lies within ±" +
                    significant(c.threshold_percent, 4) + " %, *inconclusive* when it reaches past it."});
    table t{{"suite", "scenario", "arm", "metric", "OLD", "NEW", "NEW / OLD (95 % CI)", "verdict"}, {}};
    for (const auto& r : c.rows)
        for (const auto& m : r.metrics) {
            bool measured = m.verdict != change::too_few_trials && m.verdict != change::not_sampled;
            bool changed = m.verdict == change::regressed || m.verdict == change::improved;
            auto verdict = std::string(to_string(m.verdict));
            auto unit = m.unit.empty() ? std::string{} : " " + m.unit;
            t.rows.push_back({r.suite, r.scenario, r.arm, m.label,
                              cell{significant(m.old_median, 4) + unit, m.old_median},
                              cell{significant(m.new_median, 4) + unit, m.new_median},
                              measured ? cell{significant(m.ratio.ratio, 4) + "× (" + significant(m.ratio.low, 4) +
                                                  "–" + significant(m.ratio.high, 4) + ")",
                                              m.ratio.ratio}
                                       : cell{"–"},
                              changed ? "**" + verdict + "**" : verdict});
        }
    p.add(std::move(t));
    auto summary = std::to_string(c.count(change::regressed)) + " regressed, " +
                   std::to_string(c.count(change::improved)) + " improved, " +
                   std::to_string(c.count(change::unchanged)) + " unchanged";
    if (auto n = c.count(change::inconclusive))
        summary += ", " + std::to_string(n) + " inconclusive (the interval reaches past ±" +
                   significant(c.threshold_percent, 4) + " %)";
    if (auto n = c.count(change::too_few_trials) + c.count(change::not_sampled))
        summary += ", " + std::to_string(n) + " without a verdict (too few trials or not sampled)";
    p.add(paragraph{summary + "."});
    if (!c.only_one_side.empty())
        p.add(bullets{c.only_one_side});
    for (const auto& w : c.warnings)
        p.add(paragraph{"**Warning:** " + w + "."});
    return p;
}

std::string compare_markdown(const comparison& c)
{
    return to_markdown(compare_page(c));
}

std::string compare_json(const comparison& c)
{
    nlohmann::json j;
    j["old"] = c.old_label;
    j["new"] = c.new_label;
    j["threshold_percent"] = c.threshold_percent;
    j["rows"] = nlohmann::json::array();
    for (const auto& r : c.rows) {
        nlohmann::json row{{"suite", r.suite},           {"scenario", r.scenario},     {"arm", r.arm},
                           {"old_run_id", r.old_run_id}, {"new_run_id", r.new_run_id}, {"old_trials", r.old_trials},
                           {"new_trials", r.new_trials}};
        row["metrics"] = nlohmann::json::array();
        for (const auto& m : r.metrics) {
            // JSON has no infinity: a ratio against zero is written as null.
            auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
            row["metrics"].push_back({{"metric", m.label},
                                      {"column", m.column},
                                      {"unit", m.unit},
                                      {"higher_is_better", m.higher_is_better},
                                      {"old_median", m.old_median},
                                      {"new_median", m.new_median},
                                      {"ratio", finite(m.ratio.ratio)},
                                      {"low", finite(m.ratio.low)},
                                      {"high", finite(m.ratio.high)},
                                      {"verdict", to_string(m.verdict)}});
        }
        j["rows"].push_back(std::move(row));
    }
    j["summary"] = {
        {"regressed", c.count(change::regressed)},           {"improved", c.count(change::improved)},
        {"unchanged", c.count(change::unchanged)},           {"inconclusive", c.count(change::inconclusive)},
        {"too_few_trials", c.count(change::too_few_trials)}, {"not_sampled", c.count(change::not_sampled)}};
    j["only_one_side"] = c.only_one_side;
    j["warnings"] = c.warnings;
    return j.dump(2) + "\n";
}

}  // namespace execbench::report
