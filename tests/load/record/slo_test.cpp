#include "execbench/load/record/slo.hpp"

#include "execbench/load/run/runner.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

namespace {

/// A run whose summary holds the given medians (max = median unless given).
run_record run_with(std::vector<std::tuple<std::string, double, double>> metrics)
{
    run_record r;
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

TEST_CASE("k6's thresholds map: p(95), http_req_failed and an errors rate in percent", "[load][slo]")
{
    // The user review of 2026-12-03, item 10: 'p(95)<200' was an unknown metric and 'errors<1%' not a number.
    auto gates = parse_slo("p(95)<200,p(99.9)<1s,http_req_failed<0.01,errors<1%,errors=0");
    REQUIRE(gates.ok());
    REQUIRE(gates->size() == 5);
    CHECK((*gates)[0].metric == "latency_millis_p95");
    CHECK((*gates)[0].limit == 200);  // k6's milliseconds
    CHECK((*gates)[1].metric == "latency_millis_p999");
    CHECK((*gates)[2].metric == "error_rate");
    CHECK((*gates)[2].limit == Approx(0.01));
    CHECK((*gates)[3].metric == "error_rate");
    CHECK((*gates)[3].limit == Approx(0.01));
    CHECK((*gates)[4].metric == "requests_error");  // without a percent sign errors stays a count
    CHECK_THAT(parse_slo("p99<5%").err().message, Catch::Contains("a percentage is an error rate only"));
    CHECK_THAT(parse_slo("p(98)<1").err().message, Catch::Contains("unknown metric 'p98'"));

    // The worst trial's failed share decides: 2 of 200 is 1 %, not below 1 %.
    auto rate = *parse_slo("errors<1%");
    auto r = run_with({{"requests_ok", 199, 199}, {"requests_error", 0, 2}});
    r.trials.resize(2);
    r.trials[0].measured.foreground.count.ok = 200;
    r.trials[1].measured.foreground.count.ok = 198;
    r.trials[1].measured.foreground.count.errors[0] = 2;
    auto v = check_slo(rate, r);
    REQUIRE(v.size() == 1);
    CHECK(v[0].measured == Approx(0.01));
    CHECK_FALSE(v[0].passed);
    CHECK(describe(v[0]) == "errors<1%: measured 1 % (worst trial)");
    CHECK(check_slo(*parse_slo("http_req_failed<=0.01"), r)[0].passed);
}
