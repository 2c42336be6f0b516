// bench-suite's closing table: one row per run, medians as figures, the arms of a scenario as one block.
#include "execbench/report/word/run_table.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/page/console.hpp"

#include <catch2/catch.hpp>

using namespace execbench;

namespace {

load::suite_entry entry(std::string scenario, std::string model, load::run_status status)
{
    load::suite_entry e;
    e.scenario = std::move(scenario);
    e.model = std::move(model);
    e.status = status;
    return e;
}

load::run_record with_medians(std::vector<std::pair<std::string, double>> medians)
{
    load::run_record r;
    for (auto& [name, v] : medians) {
        load::metric_spread m;
        m.name = name;
        m.spread.median = v;
        r.summary.push_back(std::move(m));
    }
    return r;
}

}  // namespace

TEST_CASE("the closing table shows each run's medians and says why a latency is missing", "[report]")
{
    namespace metric = load::metric;
    report::run_table t;
    CHECK(t.empty());
    auto pool = entry("io-600", "pool", load::run_status::ok);
    auto ok = with_medians({{std::string(metric::requests_ok), 1200},
                            {std::string(metric::requests_per_second), 40.4},
                            {std::string(metric::latency_millis_p99), 912.25}});
    t.add(pool, &ok);
    auto fiber = entry("io-600", "fiber", load::run_status::errors);
    auto none = with_medians({{std::string(metric::requests_ok), 0}, {std::string(metric::requests_error), 7}});
    t.add(fiber, &none);
    auto loop = entry("cpu-60", "loop", load::run_status::not_run);
    t.add(loop, nullptr);
    auto text = report::to_console(t.to_page());
    INFO(text);
    CHECK(text.find("io-600    pool   ok       1200       0") != std::string::npos);
    CHECK(text.find("912.2") != std::string::npos);                                     // p99 at one decimal
    CHECK(text.find("\n          fiber  errors      0       7") != std::string::npos);  // the scenario named once
    CHECK(text.find("\ncpu-60    loop   not_run\n") != std::string::npos);
    CHECK(text.find("'-': no successful request") != std::string::npos);
}
