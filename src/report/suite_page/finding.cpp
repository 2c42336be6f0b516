#include "execbench/report/suite_page/finding.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/suite_page/scenario_rows.hpp"
#include "execbench/report/word/verdict_text.hpp"
#include "execbench/report/word/words.hpp"

#include <algorithm>
#include <vector>

namespace execbench::report {

namespace metric = load::metric;

namespace {

/// The runs whose figures are the server's result, in display order.
std::vector<const run_view*> results_of(const suite_data& s, const std::string& sc)
{
    std::vector<const run_view*> out;
    for (const auto& m : s.models)
        if (const auto* v = find_run(s, sc, m); v && v->ran() && v->not_a_result().empty())
            out.push_back(v);
    return out;
}

/// Without a verdict the medians speak, each with the range of its trials: "pool 1,025 ms (1,024–1,025)".
std::string medians_text(const std::vector<const run_view*>& runs)
{
    std::vector<std::string> parts;
    for (const auto* v : runs) {
        if (v->number(metric::requests_ok) == 0) {
            parts.push_back(v->arm + " none answered");
            continue;
        }
        std::string part = v->arm + " " + millis(v->number(metric::latency_millis_p99)) + " ms";
        if (v->number(load::column::trials) > 1)
            part += " (" + millis(v->number(metric::trial_min(metric::latency_millis_p99))) + "–" +
                    millis(v->number(metric::trial_max(metric::latency_millis_p99))) + ")";
        parts.push_back(part);
    }
    return join(parts, ", ");
}

/// The mean of the once-a-second samples of requests in flight in each arm's charted trial, where the arms differ by
/// more than a fifth (and ten requests): a model that queues shows there. "" where they do not, or the timeline
/// lacks the column. A mean, not the largest sample: at a few requests in flight one sample reads 0 and the next 20
/// by where it falls against the generator's send ticks, and the largest named a model that queued none.
std::string in_flight_text(const std::vector<const run_view*>& runs)
{
    std::vector<std::pair<std::string, double>> mean;
    for (const auto* v : runs) {
        double sum = 0;
        int samples = 0;
        for (const auto& row : v->timeline)
            if (auto it = row.find(load::column::requests_in_flight); it != row.end()) {
                sum += it->second;
                ++samples;
            }
        if (samples > 0)
            mean.emplace_back(v->arm, sum / samples);
    }
    if (mean.size() < 2)
        return {};
    auto [low, high] =
        std::minmax_element(mean.begin(), mean.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (high->second < low->second * 1.2 || high->second - low->second < 10)
        return {};
    std::vector<std::string> parts;
    for (const auto& [arm, m] : mean)
        parts.push_back(arm + " " + count(m));
    return "requests in flight on average " + join(parts, ", ");
}

/// A cell that ranks arms: a winner or a shared lead, not a tie or a cell without a verdict.
bool decided(const cell_verdict& c)
{
    return c.kind == verdict::winner || c.kind == verdict::shared;
}

/// Errors by class, unsent requests and the kernel's refusals, per arm, as medians of the trials.
std::vector<std::string> failure_clauses(const std::vector<const run_view*>& runs)
{
    std::vector<std::string> errors, unsent, kernel;
    for (const auto* v : runs) {
        if (auto e = v->number(metric::requests_error); whole(e) > 0) {
            auto classes = error_classes(*v);
            errors.push_back(v->arm + " " + count(e) + (classes.empty() ? "" : " (" + join(classes, ", ") + ")"));
        }
        if (auto share = unsent_percent(*v); !share.empty())
            unsent.push_back(v->arm + " " + count(v->number(metric::requests_unsent)) + " (" + share + " %)");
        std::vector<std::string> refused;
        if (auto o = whole(v->number(metric::kernel_listen_overflows)); o > 0)
            refused.push_back(count(o) + " listen overflows");
        if (auto r = whole(v->number(metric::kernel_syn_retransmits)); r > 0)
            refused.push_back(count(r) + " SYN retransmits");
        if (!refused.empty())
            kernel.push_back(v->arm + " " + join(refused, " and "));
    }
    std::vector<std::string> out;
    if (!errors.empty())
        out.push_back("errors a trial " + join(errors, ", "));
    if (!unsent.empty())
        out.push_back("unsent a trial " + join(unsent, ", "));
    if (!kernel.empty())
        out.push_back("the kernel counted " + join(kernel, ", "));
    return out;
}

}  // namespace

std::string finding_sentence(const suite_data& s, const winners_table& w, const std::string& sc)
{
    auto runs = results_of(s, sc);
    std::vector<std::string> clauses;
    {
        // Arms whose figures are not the server's, grouped by why: "pool, fiber and loop: awaits re-measurement".
        std::vector<std::pair<std::string, std::vector<std::string>>> why;
        for (const auto& m : s.models)
            if (const auto* v = find_run(s, sc, m); v && v->ran() && !v->not_a_result().empty()) {
                auto reason = v->not_a_result();
                auto it = std::find_if(why.begin(), why.end(), [&](const auto& w) { return w.first == reason; });
                if (it == why.end())
                    why.push_back({reason, {m}});
                else
                    it->second.push_back(m);
            }
        for (const auto& [reason, arms] : why) {
            std::string names;
            for (std::size_t i = 0; i < arms.size(); ++i)
                names += (i == 0 ? "" : i + 1 == arms.size() ? " and " : ", ") + arms[i];
            clauses.push_back(names + ": " + reason + ", no figures");
        }
    }
    if (runs.empty())
        return clauses.empty() ? std::string{} : "**Finding:** " + join(clauses, "; ") + ".";

    const auto* cells = w.cells.count(sc) ? &w.cells.at(sc) : nullptr;
    auto cell = [&](std::string_view column) -> const cell_verdict* {
        if (!cells)
            return nullptr;
        auto it = cells->find(std::string(column));
        return it == cells->end() ? nullptr : &it->second;
    };
    const auto& p99 = winner_metric(metric::latency_millis_p99);
    if (const auto* c = cell(p99.column); c && (decided(*c) || c->kind == verdict::tie))
        clauses.push_back(p99.label + " — " + verdict_line(*c, p99));
    else
        clauses.push_back(p99.label + " — " + medians_text(runs) +
                          (runs.size() < 2
                               ? std::string{}
                               : ", no verdict (" + std::string(c ? to_string(c->kind) : "arms not compared") + ")"));
    for (auto column : {metric::requests_per_second, cpu_seconds_per_1k_requests}) {
        const auto& rule = winner_metric(column);
        const auto* c = cell(column);
        const auto* p = c && decided(*c) ? deciding_pair(*c, rule) : nullptr;
        if (!p || p->by_failures)
            continue;  // no measured lead: a tie, or a lead that only the failures give
        // The failures that rank an arm down are said once, in the latency clause and the counts.
        clauses.push_back(rule.label + " — " + verdict_line(*c, rule, failures_said::elsewhere));
    }
    std::vector<std::string> goodput;
    for (const auto* v : runs)
        if (auto b = capacity_basis_of(*v); b && !b->goodput_ratios.empty())
            goodput.push_back(v->arm + " " + goodput_text(*b));
    if (!goodput.empty())
        clauses.push_back("goodput / capacity " + join(goodput, ", "));
    if (auto queued = in_flight_text(runs); !queued.empty())
        clauses.push_back(queued);
    auto failures = failure_clauses(runs);
    clauses.insert(clauses.end(), failures.begin(), failures.end());
    if (failures.empty())
        clauses.emplace_back("no errors");
    return "**Finding:** " + join(clauses, "; ") + ".";
}

}  // namespace execbench::report
