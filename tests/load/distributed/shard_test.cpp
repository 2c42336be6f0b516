// Shards of a distributed run (issue 13): splitting the load, the exact trials file a --processes parent reads.
#include "execbench/load/distributed/processes.hpp"
#include "execbench/load/distributed/shard.hpp"
#include "execbench/load/scenario/overrides.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace execbench;
using namespace execbench::load;

TEST_CASE("a shard given as i/N is parsed and bad forms are named", "[shard]")
{
    auto s = parse_shard("1/3");
    REQUIRE(s);
    CHECK(s->index == 1);
    CHECK(s->count == 3);
    CHECK(format_shard(*s) == "1/3");
    for (const char* bad : {"3/3", "1", "/2", "a/2", "0/0", "-1/2", "1/2x", "0/1025"}) {
        auto r = parse_shard(bad);
        INFO(bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("--shard: expected i/N"));
    }
}

TEST_CASE("shards split connections, requests and rate so that their shares add up", "[shard]")
{
    for (std::uint64_t n : {1u, 7u, 10u, 1001u}) {
        std::uint64_t sum = 0;
        for (unsigned i = 0; i < 3; ++i)
            sum += shard_share(n, {i, 3});
        CHECK(sum == n);
    }
    scenario s = ad_hoc_scenario();
    s.load.kind = shape::open;
    s.load.connections = 10;
    s.load.rate = 900;
    s.load.length = std::chrono::seconds{2};
    unsigned connections = 0;
    double rate = 0;
    for (unsigned i = 0; i < 3; ++i) {
        auto part = shard_scenario(s, {i, 3});
        REQUIRE(part);
        connections += part->load.connections;
        rate += part->load.rate;
    }
    CHECK(connections == 10);
    CHECK(rate == Approx(900));
    auto too_many = shard_scenario(s, {10, 11});
    REQUIRE_FALSE(too_many);
    CHECK_THAT(too_many.err().message, Catch::Contains("10 connections, fewer than the 11 shards"));
}

TEST_CASE("a shard's trials read back exactly and merge by adding up", "[shard]")
{
    run_record r;
    trial_result t;
    t.index = 1;
    auto& fg = t.measured.foreground;
    fg.count.ok = 3;
    fg.count.errors[2] = 1;
    fg.count.bytes_sent = 300;
    for (std::int64_t v : {120, 950, 40'000}) {
        fg.latency.record(v);
        fg.service.record(v - 10);
        fg.latency_seconds.record(static_cast<std::size_t>(v / 1000), v);
    }
    fg.timeline.resize(2);
    fg.timeline[1].ok = 3;
    fg.started_wall = std::chrono::system_clock::time_point{std::chrono::seconds{1'800'000'000}};
    t.measured.loadgen_cpu_seconds = 0.25;
    t.measured.loadgen_cpu_percent = {12.5, 3};
    t.server = stats::process_summary{};
    t.server->cpu_percent_avg = 42.5;
    r.trials.push_back(t);

    auto parsed = parse_shard_trials(format_shard_trials(r));
    REQUIRE(parsed);
    REQUIRE(parsed->size() == 1);
    const auto& back = parsed->front();
    CHECK(back.measured.foreground.latency == fg.latency);
    CHECK(back.measured.foreground.service == fg.service);
    CHECK(back.measured.foreground.count.errors[2] == 1);
    CHECK(back.measured.foreground.latency_seconds.at(40).count() == 1);
    CHECK(back.measured.foreground.timeline[1].ok == 3);
    CHECK(back.measured.foreground.started_wall == fg.started_wall);
    CHECK(back.measured.loadgen_cpu_percent == t.measured.loadgen_cpu_percent);
    REQUIRE(back.server);
    CHECK(back.server->cpu_percent_avg == 42.5);

    std::vector<trial_result> merged;
    merge_shard_trials(merged, *parsed, {0, 2});
    merge_shard_trials(merged, *parsed, {1, 2});
    REQUIRE(merged.size() == 1);
    CHECK(merged.front().measured.foreground.count.ok == 6);
    CHECK(merged.front().measured.foreground.latency.count() == 6);
    CHECK(merged.front().measured.foreground.latency.max() == 40'000);
    CHECK(merged.front().measured.loadgen_cpu_seconds == Approx(0.5));

    CHECK_FALSE(parse_shard_trials("trial 1 0 0 0 0\n"));
    auto bad = parse_shard_trials(format_shard_trials(r) + "histogram latency not-a-histogram\n");
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.err().message, Catch::Contains("line "));
}

TEST_CASE("the shards of --processes get the user's options less the ones the parent keeps", "[shard]")
{
    std::vector<std::string> args{"--url",       "http://127.0.0.1:1/io",
                                  "--processes", "3",
                                  "--out=r.csv", "--hlog",
                                  "r.hlog",      "--rate",
                                  "100",         "--quiet",
                                  "--format",    "json",
                                  "--cpus",      "0-3"};
    CHECK(shard_arguments(args) ==
          std::vector<std::string>{"--url", "http://127.0.0.1:1/io", "--rate", "100", "--quiet"});
}

TEST_CASE("the shards of --processes get CPUs of their own when there are enough", "[shard]")
{
    CHECK(split_cpus({0, 1, 2, 3, 4}, 2) == std::vector<std::string>{"0-2", "3-4"});
    CHECK(split_cpus({0, 1}, 3) == std::vector<std::string>{"0-1", "0-1", "0-1"});
}
