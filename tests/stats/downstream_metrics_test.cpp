#include "execbench/stats/downstream_metrics.hpp"

#include <catch2/catch.hpp>

using namespace execbench::stats;

TEST_CASE("the downstream counters read back from /metrics, and a trial's figures are their growth", "[stats]")
{
    const char* before = "# HELP execbench_downstream_calls_total Downstream calls made.\n"
                         "# TYPE execbench_downstream_calls_total counter\n"
                         "execbench_downstream_calls_total 10\n"
                         "execbench_downstream_connections_opened_total 2\n"
                         "execbench_downstream_connections_reused_total 8\n"
                         "execbench_downstream_pool_waits_total 1\n"
                         "execbench_downstream_pool_wait_seconds_total 0.5\n"
                         "process_threads 7\n";
    const char* after = "execbench_downstream_calls_total 110\n"
                        "execbench_downstream_connections_opened_total 4\n"
                        "execbench_downstream_connections_reused_total 106\n"
                        "execbench_downstream_pool_waits_total 21\n"
                        "execbench_downstream_pool_timeouts_total 3\n"
                        "execbench_downstream_pool_rejections_total 1\n"
                        "execbench_downstream_pool_wait_seconds_total 2.5\n";
    auto b = parse_downstream_metrics(before);
    auto a = parse_downstream_metrics(after);
    REQUIRE(b);
    REQUIRE(a);
    CHECK(b->calls == 10);
    CHECK(b->pool_timeouts == 0);
    auto d = difference(*a, *b);
    CHECK(d.calls == 100);
    CHECK(d.connections_opened == 2);
    CHECK(d.connections_reused == 98);
    CHECK(d.pool_waits == 20);
    CHECK(d.pool_timeouts == 3);
    CHECK(d.pool_rejections == 1);
    CHECK(d.pool_wait_seconds == Approx(2.0));
    // A server without the counters (another server, or an older bench-server) gives nothing.
    CHECK_FALSE(parse_downstream_metrics("process_threads 7\n"));
    // A restart between the readings: the counts since the restart.
    CHECK(difference(*b, *a).calls == 10);
}
