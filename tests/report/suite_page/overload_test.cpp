#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/suite_page/scenario_rows.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace execbench;
using namespace execbench::report;

namespace {

/// An overload run at `times` × `capacity` whose three trials served `served` requests in their median second.
run_view overload_run(const std::string& model, double times, double capacity, std::vector<double> served)
{
    run_view v;
    v.scenario = "failure-overload-cpu-2x";
    v.model = v.arm = model;
    v.status = load::run_status::behind;
    v.run_id = "r-" + model;
    v.take_summary({{"scenario", v.scenario},
                    {"model", model},
                    {"run_id", v.run_id},
                    {"trials", "3"},
                    {"shape", "open"},
                    {"rate", std::to_string(times * capacity)},
                    {"connections", "1000"},
                    {"requests_ok", "9000"},
                    {"generator_bound_trials", "0"}});
    for (std::size_t t = 0; t < served.size(); ++t)
        v.trials.push_back({{"trial", double(t + 1)}, {std::string(load::metric::per_second_requests_p50), served[t]}});
    v.context = *load::parse_context(R"({"run_id": ")" + v.run_id + R"(", "scenario": {"name": ")" + v.scenario +
                                     R"(", "load": {"shape": "open", "rate": )" + std::to_string(times * capacity) +
                                     R"(, "rate_from": {"capacity_of": "capacity-cpu", "times": )" +
                                     std::to_string(times) + R"(, "capacity_rps": )" + std::to_string(capacity) +
                                     R"(, "search": "s-)" + model + R"("}}}})");
    return v;
}

/// The row of `rows` labelled `label`, or an empty one.
std::vector<std::string> row_of(const std::vector<std::vector<std::string>>& rows, const std::string& label)
{
    for (const auto& r : rows)
        if (!r.empty() && r.front() == label)
            return r;
    return {};
}

}  // namespace

TEST_CASE("an overload run shows its capacity and the share of it served, per trial", "[report]")
{
    auto pool = overload_run("pool", 2, 2000, {1500, 1400, 1700});
    auto basis = capacity_basis_of(pool);
    REQUIRE(basis);
    CHECK(basis->capacity_of == "capacity-cpu");
    CHECK(basis->times == 2);
    CHECK(basis->capacity_rps == 2000);
    CHECK(basis->search == "s-pool");
    CHECK(basis->goodput_ratios == std::vector<double>{0.70, 0.75, 0.85});

    // A run at a fixed rate has no basis, and an old context without the field neither.
    auto fixed = pool;
    fixed.context = *load::parse_context(R"({"scenario": {"load": {"shape": "open", "rate": 100}}})");
    CHECK_FALSE(capacity_basis_of(fixed));
    fixed.context.reset();
    CHECK_FALSE(capacity_basis_of(fixed));

    suite_data s;
    s.name = s.stem = "failure-modes";
    s.scenarios = {"failure-overload-cpu-2x"};
    s.models = {"pool", "fiber"};
    s.runs[s.scenarios[0]]["pool"] = pool;
    s.runs[s.scenarios[0]]["fiber"] = overload_run("fiber", 2, 2500, {2500, 2450, 2475});
    auto rows = scenario_rows(s, s.scenarios[0]);
    CHECK(row_of(rows, "offered: × capacity (req/s)") == std::vector<std::string>{"offered: × capacity (req/s)",
                                                                                  "2 × 2,000 (capacity-cpu)",
                                                                                  "2 × 2,500 (capacity-cpu)"});
    CHECK(row_of(rows, "goodput / capacity (trials)") ==
          std::vector<std::string>{"goodput / capacity (trials)", "0.75 (0.70–0.85)", "0.99 (0.98–1.00)"});

    // The scenario table names each arm's rate, since they differ.
    auto page = suite_markdown(s, report_paths{});
    CHECK(page.find("open, 4,000 (pool), 5,000 (fiber) req/s on 1,000 connections") != std::string::npos);
}
