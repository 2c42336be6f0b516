#include "execbench/load/scenario/scale.hpp"

#include "execbench/load/run/run_output.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/open_files.hpp"
#include "execbench/load/scenario/overrides.hpp"
#include "execbench/load/scenario/scenario_json.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

scenario parsed(const std::string& json)
{
    auto s = parse_scenario(json, "x.json", ".");
    REQUIRE(s);
    return *s;
}

scenario scaled(const scenario& s, double factor)
{
    auto r = scale_scenario(s, factor);
    REQUIRE(r);
    return *r;
}

std::uint32_t peak_stage(const load_spec& l)
{
    std::uint32_t peak = 0;
    for (const auto& st : l.stages)
        peak = std::max(peak, st.target);
    return peak;
}

const char* const spike_20k = R"({"description": "d", "requests": [{"path": "/movies?delayInMillis=100"}],
    "load": {"shape": "ramp", "profile": "stepped", "users": 20000, "duration": "180s",
             "think": {"min": "1s", "max": "3s"}}})";

}  // namespace

TEST_CASE("scaled counts round to the nearest integer and never below 1", "[load][scale]")
{
    CHECK(scale_count(20000, 0.97) == 19400);
    CHECK(scale_count(10, 0.25) == 3);  // 2.5 rounds away from zero
    CHECK(scale_count(10, 0.24) == 2);
    CHECK(scale_count(3, 0.01) == 1);  // never below 1 ...
    CHECK(scale_count(0, 0.5) == 0);   // ... unless there was nothing
    CHECK(scale_count(7, 1.0) == 7);
}

TEST_CASE("a factor of 0 or less, or above 1, is rejected, naming --scale", "[load][scale]")
{
    auto s = parsed(spike_20k);
    for (double bad : {0.0, -0.5, 1.01, 2.0, std::nan("")}) {
        auto r = scale_scenario(s, bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::StartsWith("--scale: expected a factor greater than 0 and at most 1"));
    }
    auto same = scaled(s, 1.0);
    CHECK(same.load.users == 20000);
    CHECK(same.scale.factor == 1);
    CHECK(scale_note(same).empty());
}

TEST_CASE("a ramp scales its peak and stages, not its durations or think times", "[load][scale]")
{
    auto s = parsed(spike_20k);
    auto r = scaled(s, 0.97);
    CHECK(r.load.users == 19400);
    CHECK(r.load.connections == 19400);
    CHECK(peak_stage(r.load) == 19400);
    CHECK(connections_needed(r) == 19400);
    CHECK(r.load.length == s.load.length);
    CHECK(r.load.stages.size() == s.load.stages.size());
    for (std::size_t i = 0; i < s.load.stages.size(); ++i)
        CHECK(r.load.stages[i].length == s.load.stages[i].length);
    CHECK(r.load.think_min == s.load.think_min);
    CHECK(r.load.think_max == s.load.think_max);
    CHECK(r.scale.factor == 0.97);
    CHECK(r.scale.decided_by == "--scale");
    CHECK(scale_note(r) == "run at 0.97 scale: 19,400 peak users instead of 20,000 (chosen with --scale)");

    auto stages = parsed(R"({"description": "d", "requests": [{"path": "/"}],
        "load": {"shape": "ramp", "stages": [{"duration": "10s", "target": 1000}, {"duration": "5s", "target": 3},
                                             {"duration": "5s", "target": 0}]}})");
    auto half = scaled(stages, 0.5);
    REQUIRE(half.load.stages.size() == 3);
    CHECK(half.load.stages[0].target == 500);
    CHECK(half.load.stages[1].target == 2);  // 1.5 rounds up
    CHECK(half.load.stages[2].target == 0);  // a ramp down to nobody stays at nobody
    CHECK(half.load.users == 500);
    CHECK(half.load.length == stages.load.length);
}

TEST_CASE("a compressed ramp keeps its peak, users and think times and runs its stages in less time",
          "[load][scale][time]")
{
    auto s = parsed(spike_20k);
    auto r = compress_scenario(s, 0.2);
    REQUIRE(r);
    CHECK(r->load.length == 36s);
    CHECK(r->load.users == 20000);
    CHECK(peak_stage(r->load) == 20000);
    CHECK(r->load.think_min == s.load.think_min);
    CHECK(r->load.think_max == s.load.think_max);
    duration total{};
    for (const auto& st : r->load.stages)
        total += st.length;
    CHECK(std::chrono::abs(total - 36s) < 1ms);  // the profile's stages are whole nanoseconds
    CHECK(r->time_scale.factor == 0.2);
    CHECK(time_note(*r) == "run in 0.2 of its time: 36s instead of 3m (chosen with --time-scale)");
    // Factors compose, and the note keeps the length as written.
    auto again = compress_scenario(*r, 0.5);
    REQUIRE(again);
    CHECK(again->load.length == 18s);
    CHECK(again->time_scale.unscaled == "3m");

    // Explicit stages each shrink; a request's window in the mix follows the timeline.
    auto stages = parsed(R"({"description": "d", "requests": [{"path": "/", "until": "10s"}, {"path": "/b", "from": "10s"}],
        "load": {"shape": "ramp", "stages": [{"duration": "10s", "target": 1000}, {"duration": "30s", "target": 0}]}})");
    auto half = compress_scenario(stages, 0.5);
    REQUIRE(half);
    CHECK(half->load.stages.at(0).length == 5s);
    CHECK(half->load.stages.at(1).length == 15s);
    CHECK(half->load.length == 20s);
    CHECK(half->mix.at(0).until == 5s);
    CHECK(half->mix.at(1).from == 5s);

    CHECK_FALSE(compress_scenario(s, 0));
    CHECK(compress_scenario(s, 1.5).err().message.find("--time-scale") != std::string::npos);
}

TEST_CASE("a time scale compresses a run and is dropped where the shape has no timeline", "[load][scale][time]")
{
    auto s = parsed(spike_20k);
    overrides o;
    o.time_scale = 0.5;
    REQUIRE(apply_overrides(s, o));
    CHECK(s.load.length == 90s);
    auto burst = parsed(R"({"description": "d", "requests": [{"path": "/"}], "load": {"shape": "burst", "requests": 5}})");
    CHECK_FALSE(used_by(burst, o).time_scale);
}

TEST_CASE("open rates, closed and burst connections and the background scale together", "[load][scale]")
{
    auto open = parsed(R"({"description": "d", "requests": [{"path": "/"}],
        "load": {"shape": "open", "rate": 10000, "connections": 10000, "duration": "30s"},
        "background": {"requests": [{"path": "/cpu"}], "load": {"shape": "closed", "connections": 150,
                       "duration": "40s", "think": "1s"}}})");
    auto r = scaled(open, 0.65);
    CHECK(r.load.rate == Approx(6500));
    CHECK(r.load.connections == 6500);
    CHECK(r.load.length == open.load.length);
    REQUIRE(r.background);
    CHECK(r.background->load.connections == 98);  // 97.5 rounds up
    CHECK(r.background->load.length == open.background->load.length);
    CHECK(r.background->load.think_min == open.background->load.think_min);
    CHECK(scale_note(r) == "run at 0.65 scale: 6,500 req/s on 6,500 connections; background 98 connections instead "
                           "of 10,000 req/s on 10,000 connections; background 150 connections (chosen with --scale)");

    // A burst's request count is its concurrency (all of them at once), so it scales with its connections.
    auto burst = parsed(R"({"description": "d", "requests": [{"path": "/io"}],
        "load": {"shape": "burst", "requests": 600, "connections": 200}})");
    auto b = scaled(burst, 0.5);
    CHECK(b.load.requests == 300);
    CHECK(b.load.connections == 100);

    // Factors compose and the figures as written are kept.
    auto twice = scaled(scaled(burst, 0.5), 0.5);
    CHECK(twice.scale.factor == 0.25);
    CHECK(twice.load.requests == 150);
    CHECK(twice.scale.unscaled == "600 requests on 200 connections");
}

TEST_CASE("bench-load's median line marks a scaled run", "[load][scale]")
{
    run_record r;
    r.scenario_used = parsed(spike_20k);
    CHECK_THAT(format_summary_line(r), !Catch::Contains("SCALE"));
    r.scenario_used = scaled(r.scenario_used, 0.5);
    CHECK_THAT(format_summary_line(r), Catch::EndsWith(" SCALE(0.5)"));
}

TEST_CASE("the scale option applies after the other overrides", "[load][scale]")
{
    auto s = parsed(spike_20k);
    overrides o;
    o.connections = 1000;
    o.scale = 0.5;
    REQUIRE(apply_overrides(s, o));
    CHECK(s.load.users == 500);
    CHECK(s.scale.factor == 0.5);
    o.scale = 0;
    auto bad = apply_overrides(s, o);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.err().message, Catch::StartsWith("--scale:"));
}

TEST_CASE("the largest fitting scale and the limit that decided it", "[load][scale]")
{
    const open_file_limits limits{20000, 20000, 20000};

    SECTION("a scenario within every limit runs as it is")
    {
        auto fit = largest_fitting_scale(parsed(R"({"description": "d", "requests": [{"path": "/"}],
            "load": {"shape": "closed", "connections": 19936, "duration": "1s"}})"),
                                         limits);
        REQUIRE(fit);
        CHECK(fit->factor == 1);
        CHECK(fit->decided_by.empty());
    }
    SECTION("20,000 users: the load generator decides")
    {
        auto fit = largest_fitting_scale(parsed(spike_20k), limits);
        REQUIRE(fit);
        // 20,000 × F + 64 spare within 20,000 less 2 % (19,600): F = 0.97.
        CHECK(fit->factor == 0.97);
        CHECK(fit->decided_by == "generator");
        CHECK_THAT(fit->reason,
                   Catch::Contains("the load generator") && Catch::Contains("20,064") && Catch::Contains("20,000"));
    }
    SECTION("call depth 1 on the same server: the server decides")
    {
        auto s = parsed(R"({"description": "d", "requests": [{"path": "/movies?delayCallDepth=1"}],
            "load": {"shape": "open", "rate": 10000, "connections": 10000, "duration": "1s"}})");
        auto fit = largest_fitting_scale(s, limits);
        REQUIRE(fit);
        // 3 descriptors per request: 30,000 × F + 64 <= 19,600.
        CHECK(fit->factor == 0.65);
        CHECK(fit->decided_by == "server");
    }
    SECTION("a separate downstream two levels deep: the downstream decides")
    {
        auto s = parsed(R"({"description": "d", "requests": [{"path": "/movies?delayCallDepth=2"}],
            "load": {"shape": "closed", "connections": 10000, "duration": "1s"},
            "server": {"downstream": "separate"}})");
        CHECK(descriptors_needed(s).downstream == 30000 + spare_descriptors);
        auto fit = largest_fitting_scale(s, {100000, 100000, 20000});
        REQUIRE(fit);
        CHECK(fit->factor == 0.65);
        CHECK(fit->decided_by == "downstream");
    }
    SECTION("a limit too small for even the smallest scale is an error naming the need")
    {
        auto fit = largest_fitting_scale(parsed(spike_20k), {100, 100, 100});
        REQUIRE_FALSE(fit);
        CHECK_THAT(fit.err().message, Catch::Contains("20,064") && Catch::Contains("0.01 scale"));
    }
}

TEST_CASE("scale meanings: near 1 stands for the scenario, well below it does not", "[load][scale]")
{
    CHECK_THAT(scale_meaning(0.99), Catch::Contains("stands for the scenario"));
    CHECK_THAT(scale_meaning(0.95), Catch::Contains("stands for the scenario"));
    CHECK_THAT(scale_meaning(0.66), Catch::Contains("not the scenario"));
    CHECK(format_scale(0.97) == "0.97");
    CHECK(format_scale(0.485) == "0.485");
}
