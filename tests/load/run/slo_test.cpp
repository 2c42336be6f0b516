#include "execbench/load/run/slo.hpp"

#include "execbench/load/run/runner.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

namespace {

/// A run whose summary holds the given medians (max = median unless given).
run_result run_with(std::vector<std::tuple<std::string, double, double>> metrics)
{
    run_result r;
    for (const auto& [name, median, max] : metrics) {
        metric_spread m;
        m.name = name;
        m.spread.median = median;
        m.spread.min = median;
        m.spread.max = max;
        r.summary.push_back(m);
    }
    return r;
}

}  // namespace

TEST_CASE("SLO gates parse from the documented grammar", "[load][slo]")
{
    auto gates = parse_slo("p99<300ms, p50<=0.12s,errors=0,unsent=0,rps>=1800,errors_http_5xx==0,wall>2");
    REQUIRE(gates.ok());
    REQUIRE(gates->size() == 7);
    CHECK((*gates)[0].metric == "latency_millis_p99");
    CHECK((*gates)[0].compare == slo_gate::op::less);
    CHECK((*gates)[0].limit == 300);
    CHECK((*gates)[1].limit == Approx(120));
    CHECK((*gates)[1].compare == slo_gate::op::less_equal);
    CHECK((*gates)[2].metric == "requests_error");
    CHECK((*gates)[4].metric == "requests_per_second");
    CHECK((*gates)[4].compare == slo_gate::op::greater_equal);
    CHECK((*gates)[5].metric == "errors_http_5xx");
    CHECK((*gates)[6].limit == 2);  // a bare number on a latency or wall time is milliseconds

    CHECK_THAT(parse_slo("p98<1ms").err().message, Catch::Contains("unknown metric 'p98'"));
    CHECK_THAT(parse_slo("p99").err().message, Catch::Contains("expected METRIC OP VALUE"));
    CHECK_THAT(parse_slo("rps>=fast").err().message, Catch::Contains("'fast' is not a number"));
    CHECK_THAT(parse_slo("p99<3 parsecs").err().message, Catch::Contains("is not a duration"));
    CHECK_FALSE(parse_slo(" , ").ok());
}

TEST_CASE("SLO verdicts read medians and the worst trial for failure counts and need a success for latency",
          "[load][slo]")
{
    auto gates = *parse_slo("p99<300ms,errors=0,rps>=1800");
    auto good = run_with({{"requests_ok", 100, 100},
                          {"latency_millis_p99", 250, 400},
                          {"requests_error", 0, 0},
                          {"requests_per_second", 2000, 2100}});
    auto v = check_slo(gates, good);
    CHECK_FALSE(slo_broken(v));

    auto one_bad_trial = run_with({{"requests_ok", 100, 100},
                                   {"latency_millis_p99", 250, 250},
                                   {"requests_error", 0, 3},
                                   {"requests_per_second", 2000, 2000}});
    v = check_slo(gates, one_bad_trial);
    REQUIRE(slo_broken(v));
    CHECK_FALSE(v[1].passed);
    CHECK(describe(v[1]) == "errors=0: measured 3 (worst trial)");

    auto nothing = run_with(
        {{"requests_ok", 0, 0}, {"latency_millis_p99", 0, 0}, {"requests_error", 0, 0}, {"requests_per_second", 0, 0}});
    v = check_slo(gates, nothing);
    CHECK_FALSE(v[0].passed);
    CHECK(describe(v[0]) == "p99<300ms: not measured (no successful requests)");
    CHECK_FALSE(v[2].passed);
}
