#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/suite_page/finding.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace execbench;
using namespace execbench::report;

namespace {

namespace metric = load::metric;

/// A run of `model` whose trials had these p99s (ms), each with `errors` failed requests of 3,000.
run_view run_of(const std::string& model, std::vector<double> p99s, double errors = 0)
{
    run_view v;
    v.scenario = "row";
    v.model = v.arm = model;
    v.status = errors > 0 ? load::run_status::errors : load::run_status::ok;
    v.run_id = "r-" + model;
    auto sorted = p99s;
    std::sort(sorted.begin(), sorted.end());
    v.take_summary({{"scenario", "row"},
                    {"model", model},
                    {"trials", std::to_string(p99s.size())},
                    {"shape", "open"},
                    {"generator_bound_trials", "0"},
                    {std::string(metric::requests_ok), std::to_string(3000 - errors)},
                    {std::string(metric::requests_error), std::to_string(errors)},
                    {std::string(metric::latency_millis_p99), std::to_string(sorted[sorted.size() / 2])},
                    {std::string(metric::trial_min(metric::latency_millis_p99)), std::to_string(sorted.front())},
                    {std::string(metric::trial_max(metric::latency_millis_p99)), std::to_string(sorted.back())}});
    if (errors > 0)
        v.set_cell(metric::errors_column("503"), std::to_string(errors));
    for (std::size_t t = 0; t < p99s.size(); ++t)
        v.trials.push_back({{"trial", double(t + 1)},
                            {std::string(metric::latency_millis_p99), p99s[t]},
                            {std::string(metric::requests_ok), 3000 - errors},
                            {std::string(metric::requests_error), errors},
                            {std::string(metric::requests_total), 3000}});
    return v;
}

suite_data suite_of(std::vector<run_view> runs)
{
    suite_data s;
    s.name = s.stem = "failure-modes";
    s.scenarios = {"row"};
    for (auto& v : runs) {
        s.models.push_back(v.arm);
        s.runs["row"][v.arm] = std::move(v);
    }
    return s;
}

std::string finding_of(const suite_data& s)
{
    return finding_sentence(s, rank(figures_of(s), s.models), "row");
}

}  // namespace

TEST_CASE("a scenario's finding states the p99 verdict with its interval and each arm's failures by class", "[report]")
{
    auto pool = run_of("pool", {900, 1000, 1100}, 2);  // within the failure tolerance: the p99s decide
    pool.set_cell(std::string(metric::kernel_listen_overflows), "257");
    pool.set_cell(std::string(metric::kernel_syn_retransmits), "177");
    auto s = suite_of({pool, run_of("fiber", {100, 101, 102}), run_of("loop", {100, 102, 101})});
    auto f = finding_of(s);
    INFO(f);
    CHECK(f.starts_with("**Finding:** latency p99 — fiber = loop: "));
    CHECK(f.find("lower than pool") != std::string::npos);
    CHECK(f.find("errors a trial pool 2 (503 2)") != std::string::npos);
    CHECK(f.find("the kernel counted pool 257 listen overflows and 177 SYN retransmits") != std::string::npos);
    CHECK(f.find("no errors") == std::string::npos);
    CHECK(f.ends_with("."));
    // Failures beyond the tolerance decide instead, and the sentence says so.
    auto failing = s;
    failing.runs["row"]["pool"] = run_of("pool", {900, 1000, 1100}, 120);
    auto by_failures = finding_of(failing);
    INFO(by_failures);
    CHECK(by_failures.starts_with("**Finding:** latency p99 — fiber = loop (failures over 0.1 % of requests: pool up "
                                  "to 120 errors in 3 of 3 trials); errors a trial pool 120 (503 120)"));
    // A measured throughput lead is named even where failures rank another arm down, without repeating them.
    for (auto* v : {&failing.runs["row"]["fiber"], &failing.runs["row"]["loop"]})
        for (auto& t : v->trials)
            t[std::string(metric::requests_per_second)] = 300;
    failing.runs["row"]["pool"].trials[0][std::string(metric::requests_per_second)] = 100;
    failing.runs["row"]["pool"].trials[1][std::string(metric::requests_per_second)] = 100;
    failing.runs["row"]["pool"].trials[2][std::string(metric::requests_per_second)] = 100;
    for (auto& t : failing.runs["row"]["fiber"].trials)
        t[std::string(metric::requests_per_second)] = 200;
    auto measured = finding_of(failing);
    INFO(measured);
    CHECK(measured.find("req/s — loop: 1.5") != std::string::npos);
    CHECK(measured.find("higher than fiber;") != std::string::npos);
    CHECK(measured.find("failures over") == measured.rfind("failures over"));  // said once
    // The page opens the scenario's section with it.
    auto page = suite_markdown(s, report_paths{});
    CHECK(page.find("### row\n\n" + f + "\n") != std::string::npos);
}

TEST_CASE("without a verdict the finding gives each arm's median p99 and range and says why", "[report]")
{
    auto s = suite_of({run_of("pool", {1024, 1025}), run_of("fiber", {110, 117})});
    auto f = finding_of(s);
    INFO(f);
    CHECK(f == "**Finding:** latency p99 — pool 1,025 ms (1,024–1,025), fiber 117 ms (110–117), no verdict "
               "(too few trials); no errors.");
    // Requests in flight are named where one arm held far more of them than another on average (it queued).
    auto queued = s;
    queued.runs["row"]["pool"].timeline = {{{"requests_in_flight", 40}}, {{"requests_in_flight", 1000}}};
    queued.runs["row"]["fiber"].timeline = {{{"requests_in_flight", 40}}, {{"requests_in_flight", 400}}};
    CHECK(finding_of(queued).find("; requests in flight on average pool 520, fiber 220;") != std::string::npos);
    queued.runs["row"]["pool"].timeline = {{{"requests_in_flight", 220}}, {{"requests_in_flight", 230}}};
    CHECK(finding_of(queued).find("in flight") == std::string::npos);
    // A few requests in flight sampled at the generator's send ticks read 0 or 20 by phase: no finding in that.
    queued.runs["row"]["pool"].timeline = {{{"requests_in_flight", 0}}, {{"requests_in_flight", 20}},
                                           {{"requests_in_flight", 0}}, {{"requests_in_flight", 0}}};
    queued.runs["row"]["fiber"].timeline = {{{"requests_in_flight", 0}}, {{"requests_in_flight", 0}},
                                            {{"requests_in_flight", 0}}, {{"requests_in_flight", 0}}};
    CHECK(finding_of(queued).find("in flight") == std::string::npos);
}

TEST_CASE("a generator-bound arm gives no figures in the finding", "[report]")
{
    auto pool = run_of("pool", {5, 6, 7});
    pool.set_cell("generator_bound_trials", "3");
    auto s = suite_of({pool, run_of("fiber", {4, 5, 6}), run_of("loop", {4, 5, 6})});
    auto f = finding_of(s);
    INFO(f);
    CHECK(f.starts_with("**Finding:** pool: generator-bound, no figures; latency p99 — "));
    CHECK(f.find("pool 6") == std::string::npos);
    // Arms left out for the same reason are named together.
    auto all_bound = s;
    for (auto& [arm, v] : all_bound.runs["row"])
        v.set_cell("generator_bound_trials", "3");
    CHECK(finding_of(all_bound) == "**Finding:** pool, fiber and loop: generator-bound, no figures.");
    // No arm ran at all: no finding.
    suite_data none;
    none.name = "x";
    none.scenarios = {"row"};
    none.models = {"pool"};
    CHECK(finding_sentence(none, rank(figures_of(none), none.models), "row").empty());
}
