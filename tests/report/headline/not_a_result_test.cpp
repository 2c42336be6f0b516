#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/judge/winners.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace execbench;
using namespace execbench::report;

namespace {

/// A ramp's run with three trials of a p99 of `p99` ms.
run_view ramp_run(const std::string& model, double p99, bool per_second_checked)
{
    run_view v;
    v.scenario = "spike";
    v.model = v.arm = model;
    v.status = load::run_status::ok;
    v.run_id = "r-" + model;
    v.take_summary({{"scenario", "spike"},
                    {"model", model},
                    {"run_id", v.run_id},
                    {"trials", "3"},
                    {"shape", "ramp"},
                    {"requests_ok", "9000"},
                    {"requests_error", "0"},
                    {"requests_per_second", "450"},
                    {"latency_millis_p99", std::to_string(p99)},
                    {"generator_bound_trials", "0"},
                    {"kernel_syn_retransmits", model == "pool" ? "17" : "0"},
                    {"kernel_time_wait", "0"}});
    for (int t = 1; t <= 3; ++t)
        v.trials.push_back({{"trial", t},
                            {std::string(load::metric::latency_millis_p99), p99 + t},
                            {std::string(load::metric::requests_per_second), 450}});
    v.timeline.push_back({{"second", 0}, {"requests_ok", 450}});
    if (per_second_checked)
        v.timeline.back()[std::string(load::metric::loadgen_cpu_percent)] = 40;
    return v;
}

suite_data spike_suite(bool per_second_checked)
{
    suite_data s;
    s.name = s.stem = "default";
    s.scenarios = {"spike"};
    s.models = {"pool", "fiber", "loop"};
    s.runs["spike"]["pool"] = ramp_run("pool", 100, per_second_checked);
    s.runs["spike"]["fiber"] = ramp_run("fiber", 4000, per_second_checked);
    auto loop = ramp_run("loop", 9000, per_second_checked);
    loop.status = load::run_status::generator_bound;
    loop.set_cell("generator_bound_trials", "3");
    s.runs["spike"]["loop"] = loop;
    return s;
}

}  // namespace

TEST_CASE("a generator-bound arm and a ramp recorded before the per-second check are not results", "[report]")
{
    auto checked = spike_suite(true);
    CHECK(checked.runs["spike"]["pool"].not_a_result().empty());
    CHECK(checked.runs["spike"]["loop"].not_a_result() == "generator-bound");
    auto loop_bound_by_count = checked.runs["spike"]["loop"];
    loop_bound_by_count.status = load::run_status::ok;  // an older ledger said ok; the trial count says otherwise
    CHECK(loop_bound_by_count.not_a_result() == "generator-bound");
    auto old = spike_suite(false);
    CHECK(old.runs["spike"]["pool"].not_a_result() == "awaits re-measurement");
    // Every request answered 4xx: the arm cannot answer the row, and that is the cell's result, busy generator or not.
    auto refused = checked.runs["spike"]["loop"];
    refused.set_cell("requests_ok", "0");
    refused.set_cell("requests_error", "9000");
    refused.set_cell("errors_http_4xx", "9000");
    CHECK(refused.refused_every_request());
    CHECK(refused.not_a_result().empty());
    refused.set_cell("errors_http_4xx", "8999");
    CHECK_FALSE(refused.refused_every_request());
    CHECK(refused.not_a_result() == "generator-bound");
}

TEST_CASE("the headline and the page show such cells by name and no verdict uses them", "[report]")
{
    report_paths paths;
    paths.headline_suites = {"default"};
    {
        std::vector<suite_data> suites{spike_suite(true)};
        auto block = headline_block(suites, paths);
        CHECK_THAT(block, Catch::Contains("| *generator-bound* |"));
        CHECK_THAT(block, Catch::Contains("*generator-bound*: every trial"));
        CHECK_THAT(block, !Catch::Contains("9,000 ms") && !Catch::Contains("9000 ms"));
        // pool and fiber still compare: the verdict is between them, with loop out of it.
        auto w = rank(figures_of(suites.front()), suites.front().models);
        REQUIRE(w.cells.count("spike"));
        auto page = suite_markdown(suites.front(), paths);
        CHECK_THAT(page, Catch::Contains("**generator-bound** (not a result)"));
        // The kernel's counters show where some arm's is not zero, and only there.
        CHECK_THAT(page, Catch::Contains("kernel: SYN retransmits"));
        CHECK_THAT(page, !Catch::Contains("kernel: TIME_WAIT"));
    }
    {
        std::vector<suite_data> suites{spike_suite(false)};
        auto block = headline_block(suites, paths);
        CHECK_THAT(block, Catch::Contains("*awaits re-measurement*"));
        CHECK_THAT(block, !Catch::Contains("100 ms"));
        CHECK_THAT(block, Catch::Contains("| *generator-bound* | – |"));
        auto w = rank(figures_of(suites.front()), suites.front().models);
        CHECK((w.cells.count("spike") == 0 || w.cells.at("spike").empty()));
        auto page = suite_markdown(suites.front(), paths);
        CHECK_THAT(page, Catch::Contains("**awaits re-measurement** (recorded before the per-second generator check)"));
    }
}
