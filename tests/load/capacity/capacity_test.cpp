#include "execbench/load/capacity/capacity.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/run/runner.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace execbench::load;
using execbench::test_support::temp_dir;

namespace {

/// A server whose SLO boundary for the t-th bisection is boundaries[t % size]: steps at or below it pass.
struct fake_server {
    explicit fake_server(std::vector<double> b) : boundaries(std::move(b)) {}
    std::vector<double> boundaries;
    double generator_limit = 1e12;  ///< steps at or above this are generator-bound
    unsigned calls = 0;
    std::vector<std::string> phases;

    capacity_step_function step()
    {
        return [this](double rate, const std::string& phase) -> execbench::result<capacity_step> {
            ++calls;
            phases.push_back(phase);
            // "bracket" and "bisect 1" share the first boundary; "bisect N" uses the N-th.
            std::size_t trial = phase.rfind("bisect ", 0) == 0 ? std::stoul(phase.substr(7)) - 1 : 0;
            capacity_step s;
            s.achieved_rps = rate;
            s.generator_bound = rate >= generator_limit;
            s.met_slo = rate <= boundaries[trial % boundaries.size()];
            return s;
        };
    }
};

}  // namespace

TEST_CASE("the search brackets, bisects to the resolution and brackets the true capacity", "[load][capacity]")
{
    fake_server server{{1960}};
    capacity_options o;
    o.trials = 3;
    auto r = search_capacity(o, server.step());
    REQUIRE(r.what == capacity_result::outcome::measured);
    REQUIRE(r.estimates.size() == 3);
    for (auto e : r.estimates) {
        CHECK(e <= 1960);
        CHECK(e >= 1960 / 1.05);
    }
    CHECK(r.capacity_rps <= 1960);
    CHECK(r.low_rps <= r.capacity_rps);
    CHECK(r.high_rps >= 1960);  // the top is raised by one resolution step: the boundary lies inside
    CHECK(r.high_rps <= 1960 * 1.05 * 1.05);
    CHECK_FALSE(r.lower_bound());
    // Bracket 100..3200 (6 steps), about 4 bisections, then at most ~6 steps per further trial.
    CHECK(server.calls < 30);
    CHECK(r.steps.size() == server.calls);
    CHECK(r.steps.front().phase == "bracket");
    CHECK(r.steps.front().index == 1);
    CHECK(r.steps.back().phase == "bisect 3");
    for (const auto& s : r.steps)
        CHECK(s.met_slo == (s.offered_rps <= 1960));
}

TEST_CASE("a finer resolution narrows the estimates", "[load][capacity]")
{
    fake_server server{{12'345}};
    capacity_options o;
    o.resolution = 0.01;
    o.trials = 1;
    auto r = search_capacity(o, server.step());
    REQUIRE(r.what == capacity_result::outcome::measured);
    CHECK(r.capacity_rps <= 12'345);
    CHECK(r.capacity_rps >= 12'345 / 1.01);
    // One trial: the interval is the resolution step alone.
    CHECK(r.low_rps == r.capacity_rps);
    CHECK(r.high_rps == Approx(r.capacity_rps * 1.01));
}

TEST_CASE("a start above the capacity walks down to it", "[load][capacity]")
{
    fake_server server{{700}};
    capacity_options o;
    o.start_rps = 10'000;
    o.trials = 2;
    auto r = search_capacity(o, server.step());
    REQUIRE(r.what == capacity_result::outcome::measured);
    CHECK(r.capacity_rps <= 700);
    CHECK(r.capacity_rps >= 700 / 1.05);
    CHECK_FALSE(r.steps.front().met_slo);
}

TEST_CASE("a boundary that moves between trials widens the interval over both", "[load][capacity]")
{
    fake_server server{{2000, 1800, 2200, 1900, 2100}};
    capacity_options o;
    o.trials = 5;
    auto r = search_capacity(o, server.step());
    REQUIRE(r.what == capacity_result::outcome::measured);
    REQUIRE(r.estimates.size() == 5);
    CHECK(r.capacity_rps >= 1900 / 1.05);
    CHECK(r.capacity_rps <= 2100);
    CHECK(r.low_rps < 1900);
    CHECK(r.high_rps > 2100);
    // Each later trial found its own boundary, not the first one's.
    CHECK(r.estimates[1] <= 1800);
    CHECK(r.estimates[2] >= 2200 / 1.05);
}

TEST_CASE("a generator-bound step stops the search with a lower bound, labelled so", "[load][capacity]")
{
    fake_server server{{50'000}};
    server.generator_limit = 5'000;
    capacity_options o;
    auto r = search_capacity(o, server.step());
    CHECK(r.what == capacity_result::outcome::generator_bound);
    CHECK(r.lower_bound());
    CHECK(r.capacity_rps == 3'200);  // 100, 200, ... 3200 passed; 6400 was generator-bound
    CHECK(r.steps.back().generator_bound);
    // The generator-bound step was run twice before the search gave up.
    REQUIRE(r.steps.size() >= 2);
    CHECK(r.steps[r.steps.size() - 2].offered_rps == 6'400);
    CHECK(r.steps[r.steps.size() - 2].generator_bound);
    auto line = format_capacity_line(r, "p99<=250ms");
    CHECK(line == "capacity >= 3,200 req/s (generator-bound: a lower bound, not the server's capacity) at p99<=250ms");
    auto json = format_capacity_json(r, "p99<=250ms", "fixed 10 connections");
    CHECK(json.find("\"outcome\":\"generator_bound\"") != std::string::npos);
    CHECK(json.find("\"capacity_rps_low\":null") != std::string::npos);
    CHECK(json.find("\"lower_bound\":true") != std::string::npos);
}

TEST_CASE("the search stops at its maximum and minimum rates", "[load][capacity]")
{
    capacity_options o;
    o.max_rps = 10'000;
    fake_server fast{{1e9}};
    auto up = search_capacity(o, fast.step());
    CHECK(up.what == capacity_result::outcome::above_max);
    CHECK(up.capacity_rps == 10'000);
    CHECK(up.lower_bound());
    CHECK(format_capacity_line(up, "p99<1s").find("capacity >= 10,000 req/s") == 0);

    fake_server slow{{0.5}};
    auto down = search_capacity(o, slow.step());
    CHECK(down.what == capacity_result::outcome::below_min);
    CHECK_FALSE(down.lower_bound());
    CHECK(down.steps.back().offered_rps == 1);
    CHECK(format_capacity_line(down, "p99<1s") == "capacity: below 1 req/s (no step met the SLO) at p99<1s");
}

TEST_CASE("a step that cannot run stops the search and says why", "[load][capacity]")
{
    unsigned calls = 0;
    auto step = [&](double, const std::string&) -> execbench::result<capacity_step> {
        if (++calls == 3)
            return execbench::fail("server gone");
        capacity_step s;
        s.met_slo = true;
        return s;
    };
    auto r = search_capacity(capacity_options{}, step);
    CHECK(r.what == capacity_result::outcome::stopped);
    CHECK(r.stop_reason == "server gone");
    CHECK(r.steps.size() == 2);
    CHECK(format_capacity_line(r, "p99<1s") == "capacity: not measured (server gone) at p99<1s");
}

TEST_CASE("capacity options out of range are refused with the reason", "[load][capacity]")
{
    capacity_options o;
    CHECK(validate(o).ok());
    o.growth = 1;
    CHECK(validate(o).err().message.find("growth") != std::string::npos);
    o = {};
    o.resolution = 0;
    CHECK(validate(o).err().message.find("resolution") != std::string::npos);
    o = {};
    o.start_rps = 0.5;
    CHECK_FALSE(validate(o).ok());
    o = {};
    o.trials = 0;
    CHECK_FALSE(validate(o).ok());
}

TEST_CASE("the final line groups digits and gives the interval", "[load][capacity]")
{
    capacity_result r;
    r.capacity_rps = 1960.4;
    r.low_rps = 1910;
    r.high_rps = 2000;
    CHECK(format_capacity_line(r, "p99<=250ms,errors=0") ==
          "capacity: 1,960 req/s (95 % 1,910\u20132,000) at p99<=250ms,errors=0");
    auto json = format_capacity_json(r, "p99<=250ms,errors=0", "fixed 600 connections");
    CHECK(json.find("\"capacity_rps\":1960.4") != std::string::npos);
    CHECK(json.find("\"capacity_rps_low\":1910") != std::string::npos);
    CHECK(json.find("\"capacity_rps_high\":2000") != std::string::npos);
    CHECK(json.find("\"connections\":\"fixed 600 connections\"") != std::string::npos);
}

TEST_CASE("a capacity the scenario's connections bound says so, one the server's latency bounds does not",
          "[load][capacity]")
{
    auto step = [](double offered, double achieved, double p50, std::uint64_t unsent, bool met) {
        capacity_step s;
        s.offered_rps = offered;
        s.achieved_rps = achieved;
        s.connections = 1000;
        s.p50_millis = p50;
        s.unsent = unsent;
        s.met_slo = met;
        return s;
    };
    capacity_result r;
    r.capacity_rps = 9854;
    r.low_rps = 9854;
    r.high_rps = 10432;
    // Measured: loop on 100 ms /io over 1,000 connections; above 9,854 requests found no free connection.
    r.steps = {step(8000, 8000, 100.3, 0, true), step(9854, 9854, 100.2, 0, true), step(10375, 9880, 173, 1485, false),
               step(11314, 9924, 289, 4168, false)};
    REQUIRE(bounding_connections(r) == std::optional<std::uint32_t>{1000});
    CHECK(format_capacity_line(r, "p99<=250ms") ==
          "capacity: 9,854 req/s (95 % 9,854\u201310,432), bounded by its 1,000 connections (above it requests "
          "found none free) at p99<=250ms");

    // The pool at the same connections: the step above missed on latency with nothing unsent.
    r.capacity_rps = 2072;
    r.steps = {step(2072, 2071, 157, 0, true), step(2134, 2134, 204, 0, false), step(4000, 2267, 940, 5200, false)};
    CHECK_FALSE(bounding_connections(r));
    // Unsent, but far below connections / latency: the server, queueing, is what left them unsent.
    r.steps = {step(2072, 2071, 157, 0, true), step(2134, 2100, 300, 50, false)};
    CHECK_FALSE(bounding_connections(r));
    r.what = capacity_result::outcome::generator_bound;
    CHECK_FALSE(bounding_connections(r));

    // The pool on /epoch-millis over 200 connections (the rerun's search of 2026-12-07): above 105,328 req/s requests
    // were left unsent near 200 / p50, but p50 had grown 7x from the unloaded 0.29 ms with the server's core at 99 %.
    // The saturated server is the bound; its connections only show it.
    auto on_200 = [&](double offered, double achieved, double p50, std::uint64_t unsent, bool met) {
        auto st = step(offered, achieved, p50, unsent, met);
        st.connections = 200;
        return st;
    };
    r.what = capacity_result::outcome::measured;
    r.capacity_rps = 105328;
    r.steps = {on_200(64000, 64000, 0.287, 0, true), on_200(105328, 105328, 2.079, 0, true),
               on_200(108516, 104350, 58.8, 12495, false)};
    CHECK_FALSE(bounding_connections(r));
    // The same steps without the unloaded one: nothing shows the latency grew, so Little's law names the connections.
    r.steps.erase(r.steps.begin());
    CHECK(bounding_connections(r) == std::optional<std::uint32_t>{200});

    // Pipelined 16 deep, 200 connections carry 3,200 requests at once: at 0.6 ms that is 5.3 million req/s, so a
    // server saturated at 557,000 req/s with requests unsent is the bound, not its connections.
    r.capacity_rps = 529078;
    r.steps = {on_200(529078, 529078, 0.6, 0, true), on_200(583308, 557101, 80.8, 78621, false)};
    REQUIRE(bounding_connections(r) == std::optional<std::uint32_t>{200});  // one request a connection: it would be
    r.pipeline = 16;
    CHECK_FALSE(bounding_connections(r));
}

TEST_CASE("connections are fixed or follow the rate, and the step scenario says so", "[load][capacity]")
{
    capacity_plan plan;
    CHECK(plan.connections.at(1234.5) == 1235);
    CHECK(plan.connections.describe() == "connections follow the rate (1 per req/s)");
    plan.connections.fixed = 600;
    CHECK(plan.connections.at(1234.5) == 600);
    CHECK(plan.connections.describe() == "fixed 600 connections");
    scenario s;
    s.load.kind = shape::closed;
    s.trials = 5;
    auto step = step_scenario(s, plan, 1500);
    CHECK(step.load.kind == shape::open);
    CHECK(step.load.rate == 1500);
    CHECK(step.load.connections == 600);
    CHECK(step.trials == 1);
    CHECK(step.load.length == plan.step_length);
    CHECK(step.warmup == plan.step_warmup);
}

TEST_CASE("bench-load's banner for a search states its steps, not the scenario's shape", "[load][capacity]")
{
    // The user review of 2026-12-03: the banner said "closed loop on 10 connections for 10s; warm-up 0s, 1 trial".
    auto plan = make_capacity_plan(capacity_spec{});
    REQUIRE(plan);
    CHECK(describe(*plan) == "capacity search: open-loop steps of 3s after a 1s warm-up each from 100 req/s, x2 up to "
                             "1,000,000 req/s, 3 bisection(s) to 5 %, SLO " +
                                 plan->slo + "; connections follow the rate (1 per req/s)");
}

TEST_CASE("a step reads its figures from a one-trial run and judges it by the SLO", "[load][capacity]")
{
    run_record r;
    r.scenario_used.load.rate = 2000;
    r.scenario_used.load.connections = 400;
    trial_result t;
    t.measured.foreground.count.ok = 5000;
    t.measured.foreground.count.unsent = 3;
    execbench::stats::process_summary server;
    server.cpu_percent_avg = 42;
    server.resident_mb_max = 17;
    t.server = server;
    r.trials.push_back(t);
    auto put = [&](std::string_view name, double v) {
        metric_spread m;
        m.name = std::string(name);
        m.spread.median = m.spread.min = m.spread.max = v;
        r.summary.push_back(m);
    };
    put(metric::requests_per_second, 1990);
    put(metric::requests_ok, 5000);
    put(metric::requests_error, 0);
    put(metric::requests_unsent, 3);
    put(metric::latency_millis_p50, 101);
    put(metric::latency_millis_p90, 120);
    put(metric::latency_millis_p99, 180);
    auto gates = parse_slo("p99<=250ms,errors=0,unsent=0");
    REQUIRE(gates.ok());
    auto s = step_from_run(r, *gates);
    CHECK(s.offered_rps == 2000);
    CHECK(s.achieved_rps == 1990);
    CHECK(s.connections == 400);
    CHECK(s.p99_millis == 180);
    CHECK(s.unsent == 3);
    CHECK(s.server_cpu_percent == 42);
    CHECK(s.server_rss_mb == 17);
    CHECK_FALSE(s.met_slo);  // three unsent requests break unsent=0
    CHECK(s.note.find("unsent=0") != std::string::npos);
    auto lenient = parse_slo("p99<=250ms,errors=0");
    CHECK(step_from_run(r, *lenient).met_slo);
}

TEST_CASE("capacity files read back what was written", "[load][capacity]")
{
    temp_dir dir;
    fake_server server{{1960}};
    capacity_record rec;
    rec.run_id = "r1";
    rec.scenario = "capacity-io";
    rec.arm = "pool";
    rec.model = "pool";
    rec.slo = "p99<=250ms,errors=0";
    rec.connections = "fixed 600 connections";
    rec.result = search_capacity(capacity_options{}, server.step());
    rec.result.steps.front().note = "p99<=250ms: measured 300ms, \"median\"";
    auto paths = capacity_paths_for(dir.path / "cap.csv");
    CHECK(paths.steps == dir.path / "cap-capacity-steps.csv");
    CHECK(paths.summary == dir.path / "cap-capacity.csv");
    REQUIRE(write_capacity(rec, paths).ok());
    capacity_record bound = rec;
    bound.run_id = "r2";
    bound.arm = "loop";
    bound.result.what = capacity_result::outcome::generator_bound;
    bound.result.steps.resize(2);
    REQUIRE(write_capacity(bound, paths).ok());
    auto back = read_capacity(paths);
    REQUIRE(back.ok());
    REQUIRE(back->size() == 2);
    const auto& a = (*back)[0];
    CHECK(a.arm == "pool");
    CHECK(a.connections == "fixed 600 connections");
    CHECK(a.result.what == capacity_result::outcome::measured);
    CHECK(a.result.capacity_rps == Approx(rec.result.capacity_rps).margin(0.1));
    CHECK(a.result.high_rps == Approx(rec.result.high_rps).margin(0.1));
    REQUIRE(a.result.estimates.size() == rec.result.estimates.size());
    REQUIRE(a.result.steps.size() == rec.result.steps.size());
    CHECK(a.result.steps.front().note == rec.result.steps.front().note);
    CHECK(a.result.steps.back().phase == rec.result.steps.back().phase);
    CHECK(a.result.steps[3].met_slo == rec.result.steps[3].met_slo);
    CHECK((*back)[1].result.what == capacity_result::outcome::generator_bound);
    CHECK((*back)[1].result.steps.size() == 2);
    CHECK(a.result.pipeline == 1);

    SECTION("the pipeline depth, and files from before it was a column")
    {
        capacity_record deep = rec;
        deep.run_id = "r3";
        deep.result.pipeline = 16;
        REQUIRE(write_capacity(deep, paths).ok());
        auto again = read_capacity(paths);
        REQUIRE(again.ok());
        REQUIRE(again->size() == 3);
        CHECK((*again)[2].result.pipeline == 16);

        // The summary as written before the column existed (schema 1, which stated no schema either): read as one
        // request a connection.
        std::stringstream written;
        written << std::ifstream(paths.summary).rdbuf();
        auto text = written.str();
        std::ofstream old(paths.summary, std::ios::trunc);
        for (std::size_t at = 0, end = 0; at < text.size(); at = end + 1) {
            end = text.find('\n', at);
            auto line = text.substr(at, end - at);
            old << line.substr(0, line.rfind(',', line.rfind(',') - 1)) << "\n";
        }
        old.close();
        auto older = read_capacity(paths);
        REQUIRE(older.ok());
        CHECK((*older)[2].result.pipeline == 1);
    }
}

TEST_CASE("a step generator-bound once is run again and the search goes on", "[load][capacity]")
{
    unsigned bound_left = 1;
    auto step = [&](double rate, const std::string&) -> execbench::result<capacity_step> {
        capacity_step s;
        s.achieved_rps = rate;
        s.met_slo = rate <= 1960;
        s.generator_bound = rate == 800 && bound_left > 0;
        if (s.generator_bound)
            --bound_left;
        return s;
    };
    capacity_options o;
    o.trials = 1;
    auto r = search_capacity(o, step);
    CHECK(r.what == capacity_result::outcome::measured);
    CHECK(r.capacity_rps <= 1960);
    CHECK(r.capacity_rps >= 1960 / 1.05);
    REQUIRE(r.steps.size() > 4);
    CHECK(r.steps[3].generator_bound);
    CHECK(r.steps[4].offered_rps == 800);
    CHECK_FALSE(r.steps[4].generator_bound);
}

TEST_CASE("an overload's rate is a multiple of each arm's latest measured capacity, and only of a measured one",
          "[load][capacity]")
{
    auto search = [](std::string run_id, std::string scenario, std::string arm, double capacity) {
        capacity_record r;
        r.run_id = std::move(run_id);
        r.scenario = std::move(scenario);
        r.arm = std::move(arm);
        r.model = r.arm;
        r.result.capacity_rps = capacity;
        capacity_step met;
        met.offered_rps = met.achieved_rps = capacity;
        met.connections = 200;
        met.p50_millis = 5;
        met.met_slo = true;
        r.result.steps = {met};
        return r;
    };
    std::vector<capacity_record> searches{search("old", "capacity-cpu", "pool", 1800),
                                          search("io", "capacity-io-100", "pool", 2072),
                                          search("new", "capacity-cpu", "pool", 2167),
                                          search("f", "capacity-cpu", "fiber", 2522)};
    auto multiple = [](std::string of, double times) {
        rate_from_capacity r;
        r.capacity_of = std::move(of);
        r.times = times;
        return r;
    };
    auto from = multiple("capacity-cpu", 1.5);
    CHECK(describe(from) == "1.5 × the capacity of capacity-cpu");

    auto pool = rate_of_arm(searches, from, "pool", "results/capacity/capacity-capacity.csv");
    REQUIRE(pool.ok());
    CHECK(pool->capacity == 2167);  // the latest search of the arm, not the first
    CHECK(pool->rate == Approx(3250.5));
    CHECK(pool->run_id == "new");
    auto fiber = rate_of_arm(searches, multiple("capacity-cpu", 2), "fiber", "c.csv");
    REQUIRE(fiber.ok());
    CHECK(fiber->rate == Approx(5044));

    auto missing = rate_of_arm(searches, from, "loop", "c.csv");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.err().message.find("c.csv holds no search of capacity-cpu for arm loop") != std::string::npos);
    CHECK(missing.err().message.find("bench-suite --suite capacity --scenarios capacity-cpu") != std::string::npos);

    // A lower bound, multiplied, is no overload of the model.
    searches.push_back(search("g", "capacity-cpu", "loop", 30000));
    searches.back().result.what = capacity_result::outcome::generator_bound;
    auto bound = rate_of_arm(searches, from, "loop", "c.csv");
    REQUIRE_FALSE(bound.ok());
    CHECK(bound.err().message.find("measured no capacity") != std::string::npos);
    CHECK(bound.err().message.find("no overload") != std::string::npos);

    // Nor is a capacity the scenario's connections set: above it requests found no free connection.
    auto io = search("b", "capacity-io-100", "fiber", 9854);
    capacity_step above;
    above.offered_rps = 10375;
    above.achieved_rps = 9880;
    above.connections = 1000;
    above.p50_millis = 100;
    above.unsent = 1485;
    io.result.steps = {io.result.steps.front(), above};
    io.result.steps.front().connections = 1000;
    io.result.steps.front().p50_millis = 100;
    searches.push_back(io);
    auto connections = rate_of_arm(searches, multiple("capacity-io-100", 1.5), "fiber", "c.csv");
    REQUIRE_FALSE(connections.ok());
    CHECK(connections.err().message.find("bounded by the scenario's 1,000 connections") != std::string::npos);
}

TEST_CASE("the capacity files are found from a results folder or its CSV", "[load][capacity]")
{
    temp_dir dir;
    std::filesystem::create_directories(dir.path / "capacity");
    CHECK(capacity_paths_in(dir.path / "capacity").summary == dir.path / "capacity" / "capacity-capacity.csv");
    CHECK(capacity_paths_in(dir.path / "capacity/").steps == dir.path / "capacity" / "capacity-capacity-steps.csv");
    CHECK(capacity_paths_in(dir.path / "capacity" / "capacity.csv").summary ==
          dir.path / "capacity" / "capacity-capacity.csv");
    // A study names a folder before the step that writes it has run: it is a folder by its name.
    CHECK(capacity_paths_in(dir.path / "not-yet" / "tls").summary == dir.path / "not-yet" / "tls" / "tls-capacity.csv");
}

TEST_CASE("a run on its own refuses a rate that only a suite resolves, and says what to give", "[load][capacity]")
{
    scenario s;
    s.name = "failure-overload-cpu-2x";
    s.mix = {request_spec{}};
    s.load.kind = shape::open;
    s.load.connections = 10;
    s.load.length = std::chrono::seconds{1};
    s.load.rate_from.emplace();
    s.load.rate_from->capacity_of = "capacity-cpu";
    s.load.rate_from->times = 2;
    run_options o;
    o.url = "http://127.0.0.1:1";  // never reached: the run stops before it connects
    auto r = run(s, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().message.find("2 × the capacity of capacity-cpu") != std::string::npos);
    CHECK(r.err().message.find("give --rate") != std::string::npos);
}
