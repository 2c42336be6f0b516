// The context line: what the writer writes, the reader reads back, whole; and an older or hand-written line reads
// with its missing fields as unknown, never as a failure.
#include "execbench/load/results/context.hpp"

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

/// A context with every optional part present: a ramp with stages, a background, an order, a capacity basis, a
/// windowed mix and a scale.
run_context full_context()
{
    run_context c;
    c.run_id = "r-1";
    c.started_at = "2026-12-04T10:00:00Z";
    c.machine.execbench_version = "0.1.0";
    c.machine.git_revision = "abcdef012345";
    c.machine.source_digest = "0123456789abcdef";
    c.machine.cpu_model = "Test CPU";
    c.machine.cpu_count = 2;
    c.machine.cpu_mhz = 2596.5;
    c.machine.memory_mb = 24105;
    c.machine.loadavg_before = 0.5;
    c.machine.steal_percent = 0.25;
    c.machine.port_range = "32768-60999";
    c.cpu_max_window_ms = 1000;
    c.arm = {.name = "pool-400", .model = "pool", .options = {{"threads", "400"}}};
    c.scenario_used.graceful_stop = 2s;
    c.order = run_order{.kind = "interleaved", .seed = 1205, .round = 3};
    c.affinity = affinity_record{.server = "0", .load = "1", .downstream = ""};
    auto& s = c.scenario_used;
    s.name = "spike";
    s.description = "a \"quoted\" spike";
    s.suites = {"reactive", "ramps"};
    request_spec io;
    io.path = "/io?delayInMillis=100";
    io.weight = 3;
    io.from = 2s;
    io.until = 5s;
    s.mix = {io};
    s.load.kind = shape::ramp;
    s.load.users = 200;
    s.load.connections = 200;
    s.load.length = 10s;
    s.load.profile = ramp_profile::stages;
    s.load.stages = {{2s, 100}, {2799999999ns, 200}, {1s, 0}};
    s.load.requests_per_connection = 10;
    s.load.preconnect = false;
    s.load.rate_from = rate_from_capacity{.capacity_of = "capacity-cpu", .times = 1.5, .capacity_rps = 5268,
                                          .search = "s-9"};
    background_spec bg;
    bg.load.kind = shape::open;
    bg.load.rate = 150;
    bg.load.connections = 150;
    bg.load.pipeline = 16;
    bg.delay = 500ms;
    s.background = bg;
    s.warmup = 3s;
    s.trials = 5;
    s.server.downstream = "separate";
    s.server.database = "postgresql";
    s.server.options = {{"threads", "4"}, {"verbose", "true"}};
    s.scale.factor = 0.5;
    s.scale.decided_by = "--scale";
    c.scale_note = "run at 0.5 scale: 200 peak users";
    c.url = "http://127.0.0.1:8080";
    c.threads = 2;
    c.server.model = "pool";
    c.server.health_json = R"({"cpus":"0","model":"pool","status":"up","threads":400})";
    c.server.local = true;
    c.server.pid = 4242;
    c.server.sampling = "proc";
    c.trials_completed = 5;
    c.generator_bound_trials = 1;
    c.partial = true;
    c.noisy = true;
    return c;
}

}  // namespace

TEST_CASE("a context line reads back as the context that was written", "[load][results][context]")
{
    auto written = to_json(full_context());
    auto read = parse_context(written);
    REQUIRE(read.ok());
    // Written again, the same bytes: every field the writer spells, the reader reads.
    CHECK(to_json(*read) == written);

    const auto& s = read->scenario_used;
    CHECK(read->run_id == "r-1");
    CHECK(read->machine.memory_mb == 24105);
    CHECK(read->machine.source_digest == "0123456789abcdef");
    CHECK(read->machine.loadavg_before == 0.5);
    CHECK_FALSE(read->machine.loadavg_after);
    REQUIRE(read->order);
    CHECK(read->order->seed == 1205);
    REQUIRE(read->affinity);
    CHECK(read->affinity->load == "1");
    CHECK(s.load.kind == shape::ramp);
    REQUIRE(s.load.stages.size() == 3);
    CHECK(s.load.stages[1].length == 2799999999ns);
    REQUIRE(s.load.rate_from);
    CHECK(s.load.rate_from->capacity_rps == 5268);
    REQUIRE(s.background);
    CHECK(s.background->load.pipeline == 16);
    CHECK(s.background->delay == 500ms);
    CHECK(s.graceful_stop == std::optional<duration>(2s));
    REQUIRE(s.mix.size() == 1);
    CHECK(s.mix[0].until == std::optional<duration>(5s));
    CHECK(s.server.options.at("threads") == "4");
    CHECK(read->scale_note == "run at 0.5 scale: 200 peak users");
    CHECK(read->server.pid == 4242);
    CHECK(read->server.health_fields() ==
          std::map<std::string, std::string>{{"cpus", "0"}, {"model", "pool"}, {"status", "up"}, {"threads", "400"}});
}

TEST_CASE("an older or hand-written context line reads with what it lacks as unknown", "[load][results][context]")
{
    auto c = parse_context(R"({"run_id":"x","scenario":{"name":"io","load":{"shape":"open","rate":"fast"}}})");
    REQUIRE(c.ok());
    CHECK(c->run_id == "x");
    CHECK(c->scenario_used.name == "io");
    CHECK(c->scenario_used.load.kind == shape::open);
    CHECK(c->scenario_used.load.rate == 0);  // mistyped: the default, not a failure
    CHECK_FALSE(c->affinity);
    CHECK_FALSE(c->order);
    CHECK_FALSE(c->scenario_used.load.rate_from);
    CHECK(c->url.empty());
    CHECK(c->machine.cpu_model.empty());
    CHECK(c->server.health_fields().empty());

    CHECK_FALSE(parse_context("[1, 2]").ok());
    CHECK_FALSE(parse_context("{not json").ok());
    CHECK_FALSE(parse_context("").ok());
}

TEST_CASE("a context file reads back whole: its contexts in order, torn lines skipped, a newer schema refused",
          "[load][results][context]")
{
    execbench::test_support::temp_dir d("execbench-context-file");
    auto file = d.path / "x-context.jsonl";
    CHECK(read_context_file(file)->empty());  // no file yet: no contexts
    auto first = full_context();
    auto second = full_context();
    second.run_id = "r-2";
    {
        std::ofstream out(file);
        out << to_json(first) << "\n" << to_json(second) << "\n" << R"({"run_id":"r-3","sche)";
    }
    auto read = read_context_file(file);
    REQUIRE(read.ok());
    REQUIRE(read->size() == 2);
    CHECK((*read)[0].run_id == "r-1");
    CHECK((*read)[1].run_id == "r-2");

    std::ofstream(file, std::ios::app) << "\n" << R"({"run_id":"r-4","schema":999})" << "\n";
    auto newer = read_context_file(file);
    REQUIRE_FALSE(newer.ok());
    CHECK_THAT(newer.err().message, Catch::Contains("x-context.jsonl line 4"));
}
