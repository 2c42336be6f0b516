#include "execbench/load/suite/estimate.hpp"

#include "execbench/load/scenario/scenario_catalogue.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

using namespace execbench::load;

namespace {

scenario named(std::string_view name)
{
    return load_named_scenario(std::filesystem::path(EXECBENCH_SOURCE_DIR) / "scenarios", name).value();
}

double seconds(duration d)
{
    return std::chrono::duration<double>(d).count();
}

const arm_spec pool{"pool", "pool", {}};
const arm_spec fiber{"fiber", "fiber", {}};

}  // namespace

TEST_CASE("the pool deadlocks on self-calls that need more workers than it has, and no other arm does", "[suite]")
{
    // 10,000 req/s, one self-call, 100 ms: 2,000 workers' worth of requests in flight against 200.
    auto s = named("10k-vus-and-rps-get-movies-call-depth-1");
    CHECK(self_calls_exhaust_threads(s, pool));
    CHECK_FALSE(self_calls_exhaust_threads(s, fiber));
    CHECK_FALSE(self_calls_exhaust_threads(s, arm_spec{"nginx", "", {}, "exec nginx {port}"}));
    // Enough workers, or the calls going to a separate downstream, and it does not.
    CHECK_FALSE(self_calls_exhaust_threads(s, arm_spec{"pool4k", "pool", {{"threads", "4000"}}}));
    auto separate = s;
    separate.server.downstream = "separate";
    CHECK_FALSE(self_calls_exhaust_threads(separate, pool));
    // Below the ceiling (200 workers / 2 levels / 0.1 s = 1,000 req/s) it keeps up.
    auto slow = s;
    slow.load.rate = 500;
    CHECK_FALSE(self_calls_exhaust_threads(slow, pool));
    // No self-call at all.
    CHECK_FALSE(self_calls_exhaust_threads(named("5k-vus-and-rps-get-movies"), pool));
    // A spike's users wait their share of 100 ms + 1-3 s think: 6,400 of them hold about 610 workers.
    auto spike = named("20k-vus-smooth-spike-get-post-movies-call-depth-1");
    spike.load.connections = 6400;
    CHECK(self_calls_exhaust_threads(spike, pool));
    spike.load.connections = 1000;  // about 48 at once, 95 workers
    CHECK_FALSE(self_calls_exhaust_threads(spike, pool));
}

TEST_CASE("a run's estimate: its timeline, a burst's waits, the deadlocked phases' timeouts", "[suite]")
{
    auto hot = named("hot-path-30k");
    // Warm-up + a trial + the pause after the warm-up, and well under a second of starting and stopping.
    const double timeline = seconds(hot.warmup + hot.load.length + hot.pause);
    CHECK(seconds(estimate_run(hot, 1, fiber)) > timeline);
    CHECK(seconds(estimate_run(hot, 1, fiber)) < timeline + 1);
    CHECK(seconds(estimate_run(hot, 3, fiber)) == Approx(seconds(estimate_run(hot, 1, fiber)) +
                                                          2 * seconds(hot.load.length + hot.pause)));

    // A burst of 600 requests waiting 300 ms: its warm-up, the burst and the pause, under 4 s (2 s a trial before).
    auto io = named("io-600");
    CHECK(seconds(estimate_run(io, 1, fiber)) > seconds(io.warmup + io.pause) + 0.3);
    CHECK(seconds(estimate_run(io, 1, fiber)) < seconds(io.warmup + io.pause) + 1.5);

    // Under the pool, a burst's requests wait in batches of its 200 workers: io-600's 600 take three waits, and
    // memory-in-flight's 4,000 one-second requests twenty (its journal: 20.3 s a trial).
    CHECK(seconds(estimate_run(io, 1, pool) - estimate_run(io, 1, fiber)) == Approx(2 * 0.3));
    auto in_flight = named("memory-in-flight");
    CHECK(seconds(estimate_run(in_flight, 1, pool) - estimate_run(in_flight, 1, fiber)) == Approx(19.0));
    CHECK(seconds(estimate_run(in_flight, 1, arm_spec{"pool4k", "pool", {{"threads", "4000"}}})) ==
          Approx(seconds(estimate_run(in_flight, 1, fiber))));

    // The deadlocked pool: the warm-up's and the trial's requests each wait out the 30 s graceful stop of the
    // seed's fixed-rate script; without one, the 60 s timeout.
    auto self = named("10k-vus-and-rps-get-movies-call-depth-1");
    REQUIRE(self.graceful_stop);
    CHECK(seconds(estimate_run(self, 1, pool) - estimate_run(self, 1, fiber)) == Approx(2 * 30.0));
    self.graceful_stop.reset();
    CHECK(seconds(estimate_run(self, 1, pool) - estimate_run(self, 1, fiber)) ==
          Approx(2 * seconds(self.timeout)));

    // An RSA-4096 server makes its key at start and does a full handshake per connection.
    auto tls = named("tls-storm-baseline");
    auto clear = tls;
    clear.tls = false;
    CHECK(seconds(estimate_run(tls, 1, fiber) - estimate_run(clear, 1, fiber)) > 1.5);
}
