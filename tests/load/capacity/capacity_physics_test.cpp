// The capacity search against real servers: the pool's ceiling is its workers over the delay, the loop's the
// connections over the delay (issue 22, item 4). Short steps and generous bounds: the machine is small and shared.
#include "execbench/load/capacity/capacity.hpp"

#include "support/child_process.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

using execbench::test_support::bench_load_path;
using execbench::test_support::child_process;
using execbench::test_support::server_process;
using namespace std::chrono_literals;

namespace {

constexpr int connections = 600;

/// Runs bench-load --capacity on /io?delayInMillis=100 against `port`, from `start` req/s and bisecting to
/// `resolution` percent; returns its capacity JSON object.
nlohmann::json capacity_of(std::uint16_t port, const std::string& start, const std::string& resolution)
{
    child_process load(
        {bench_load_path(), "--url", "http://127.0.0.1:" + std::to_string(port) + "/io?delayInMillis=100", "--capacity",
         "--slo", "p99<=300ms,errors=0,unsent=0", "--start-rate", start, "--resolution", resolution, "--connections", std::to_string(connections),
         "--duration", "3s", "--warmup", "500ms", "--trials", "1", "--format", "json", "--quiet"});
    for (;;) {
        auto line = load.read_line(60s);  // one step is about 4 s; a minute means it hangs
        auto j = nlohmann::json::parse(line);
        if (j["type"] == "capacity") {
            auto exit_code = load.wait_exit(10s);
            INFO(load.stderr_text());
            CHECK(exit_code == std::optional<int>{0});
            return j;
        }
        REQUIRE(j["type"] == "capacity_step");
    }
}

}  // namespace

TEST_CASE("capacity: the pool's 200 workers cap it at 2,000 req/s of 100 ms /io, the loop several times higher",
          "[load][capacity][integration]")
{
    double pool = 0;
    {
        server_process server({"--model", "pool", "--threads", "200"});
        // From 1,500 the bracket's second step is 3,000, not 4,000: an instrumented generator beside another test
        // reached its CPU bound at 4,000 req/s in CI, and a step it cannot offer is no measurement of the pool.
        auto j = capacity_of(server.port(), "1500", "5");
        INFO(j.dump());
        REQUIRE(j["outcome"] == "measured");
        pool = j["capacity_rps"].get<double>();
        // 200 workers / 0.1 s = 2,000 req/s. Beyond it the queue grows by the excess: over a 3 s step 10 % too
        // much adds 0.3 s to the last requests and breaks p99<=300ms; 200 ms of headroom keeps a shared machine's
        // scheduling delays from breaking it below the ceiling.
        CHECK(pool >= 1800);
        CHECK(pool <= 2200);
        CHECK(j["capacity_rps_low"].get<double>() <= pool);
        CHECK(j["capacity_rps_high"].get<double>() >= pool);
        CHECK(j["connections"] == "fixed 600 connections");
    }
    {
        server_process server({"--model", "loop"});
        // Only "past twice the pool, below the connections' bound" is checked: starting near it and bisecting
        // coarsely takes five steps instead of nine (this test was the longest of the suite, 68 s).
        auto j = capacity_of(server.port(), "4000", "20");
        INFO(j.dump());
        // A busy generator may stop the search early: its lower bound must then already clear the pool's ceiling.
        REQUIRE((j["outcome"] == "measured" || j["outcome"] == "generator_bound"));
        auto loop = j["capacity_rps"].get<double>();
#ifndef EXECBENCH_SANITIZER
        CHECK(loop >= 2 * pool);
#else
        // Instrumented, the loop's CPU per request is several times Release's (3,221 req/s measured under ASan
        // with -j2 beside a build): past the pool it is, but how far is the sanitizer's figure, not the model's.
        CHECK(loop > pool);
#endif
        // 600 connections / 0.1 s = 6,000 req/s: beyond that requests find no free connection (unsent).
        CHECK(loop <= connections / 0.1 * 1.05);
    }
}
