#include "execbench/load/scenario/scenario_json.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"
#include "execbench/load/suite/estimate.hpp"
#include "execbench/load/suite/journal.hpp"

#include "support/temp_dir.hpp"

#include "execbench/core/cpus.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/scenario/open_files.hpp"
#include "execbench/load/run/machine_context.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

using execbench::test_support::temp_dir;

void write(const std::filesystem::path& p, const std::string& text)
{
    std::ofstream out(p);
    out << text;
}

std::filesystem::path script(const std::filesystem::path& dir, const std::string& name, const std::string& body)
{
    auto p = dir / name;
    write(p, "#!/bin/sh\n" + body + "\n");
    ::chmod(p.c_str(), 0755);
    return p;
}

scenario parsed(const std::string& json, const std::filesystem::path& dir)
{
    auto s = parse_scenario(json, dir / "x.json", dir);
    REQUIRE(s);
    return *s;
}

}  // namespace

TEST_CASE("descriptor needs count the calls downstream a request makes", "[load][suite]")
{
    temp_dir d("execbench-suite-test");
    auto plain = parsed(R"({"description": "d", "requests": [{"path": "/io"}],
        "load": {"shape": "closed", "connections": 100, "duration": "1s"}})",
                        d.path);
    CHECK(max_call_depth(plain) == 0);
    CHECK(descriptors_needed(plain).load_generator == 100 + spare_descriptors);
    CHECK(descriptors_needed(plain).server == 100 + spare_descriptors);

    auto self = parsed(R"({"description": "d", "requests": [{"path": "/epoch-millis?delayInMillis=1"},
        {"path": "/movies?delayCallDepth=2&delayInMillis=100"}],
        "load": {"shape": "open", "rate": 10, "connections": 100, "duration": "1s"}})",
                       d.path);
    CHECK(max_call_depth(self) == 2);
    CHECK(descriptors_needed(self).server == 100 * 5 + spare_descriptors);

    auto separate = parsed(R"({"description": "d", "requests": [{"path": "/epoch-millis?delayCallDepth=1"}],
        "load": {"shape": "closed", "connections": 100, "duration": "1s"},
        "server": {"downstream": "separate"}})",
                           d.path);
    CHECK(descriptors_needed(separate).server == 200 + spare_descriptors);
}

TEST_CASE("server options become bench-server flags", "[load][suite]")
{
    server_spec spec;
    spec.options = {{"threads", "4"}, {"movies-read-only", "true"}, {"queue", "false"}};
    auto args = server_option_args(spec);
    CHECK(args == std::vector<std::string>{"--movies-read-only", "--threads", "4"});
}

TEST_CASE("the ledger round-trips every status and quotes messages", "[load][suite]")
{
    temp_dir d("execbench-suite-test");
    auto file = ledger_path(d.path, "s");
    suite_entry a{"s", "io-600", "pool", run_status::ok, "id-1", "2026-01-01T00:00:00Z", 1.5, "", "pool400"};
    suite_entry b{"s", "big", "loop", run_status::not_run, "", "2026-01-01T00:00:01Z", 0, "not run: limit, \"20000\"",
                  ""};
    suite_entry c{"s", "x", "fiber", run_status::failed, "", "2026-01-01T00:00:02Z", 0.1, "line one\nline two", "c"};
    suite_entry d2{"s", "open", "loop", run_status::behind, "id-4", "2026-01-01T00:00:03Z", 2, "requests_unsent=7", ""};
    REQUIRE(append_ledger(file, a));
    REQUIRE(append_ledger(file, b));
    REQUIRE(append_ledger(file, c));
    REQUIRE(append_ledger(file, d2));
    auto back = read_ledger(file);
    REQUIRE(back);
    REQUIRE(back->size() == 4);
    CHECK((*back)[0].arm_name() == "pool400");
    CHECK((*back)[1].arm_name() == "loop");  // no arm given: the model
    CHECK((*back)[2].arm_name() == "c");
    CHECK((*back)[3].status == run_status::behind);
    CHECK((*back)[0].status == run_status::ok);
    CHECK((*back)[0].run_id == "id-1");
    CHECK((*back)[0].seconds == Approx(1.5));
    CHECK((*back)[1].status == run_status::not_run);
    CHECK((*back)[1].message == b.message);
    CHECK((*back)[2].message == c.message);
    CHECK(parse_run_status("errors") == run_status::errors);
    CHECK_FALSE(parse_run_status("fine"));
}

TEST_CASE("a suite's closing line counts stopped runs and connection-bound capacities apart", "[load][suite]")
{
    // The user review of 2026-12-03: Ctrl-C read as "with request errors", and a capacity the scenario's
    // connections bounded as a measurement of the server.
    std::vector<suite_entry> entries(5);
    entries[0].status = run_status::ok;
    entries[1].status = run_status::stopped;
    for (std::size_t i = 2; i < 5; ++i) {
        entries[i].status = run_status::ok;
        entries[i].capacity_search = true;
        entries[i].measured = true;
    }
    entries[3].connection_bound = true;
    entries[4].connection_bound = true;
    auto o = tally(entries);
    CHECK(o.ok == 1);
    CHECK(o.errors == 0);
    CHECK(o.stopped == 1);
    CHECK_FALSE(o.any_failed());
    CHECK_THAT(o.text(), Catch::Contains("0 with request errors") && Catch::Contains("1 stopped early (partial)"));
    CHECK_THAT(o.text(), Catch::Contains("3 capacity search(es): 1 measured, 2 bounded by the scenario's connections"));
}

TEST_CASE("a server that fails to start is reported with its reason, within the deadline", "[load][suite]")
{
    temp_dir d("execbench-suite-test");
    server_process p;
    SECTION("missing binary")
    {
        auto r = p.start(d.path / "no-such-server", {}, std::chrono::steady_clock::now() + 2s);
        REQUIRE_FALSE(r);
    }
    SECTION("exits at once, saying why on stderr")
    {
        auto bin = script(d.path, "dies", "echo 'cannot bind: address in use' >&2; exit 3");
        auto r = p.start(bin, {}, std::chrono::steady_clock::now() + 5s);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("exited with status 3"));
        CHECK_THAT(r.err().message, Catch::Contains("cannot bind"));
    }
    SECTION("start line without a port")
    {
        auto bin = script(d.path, "noport", "echo 'hello'; sleep 30");
        auto r = p.start(bin, {}, std::chrono::steady_clock::now() + 5s);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("no port"));
    }
    SECTION("never announces itself")
    {
        auto bin = script(d.path, "silent", "sleep 30");
        auto started = std::chrono::steady_clock::now();
        auto r = p.start(bin, {}, started + 500ms);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("no start line in time"));
        CHECK(std::chrono::steady_clock::now() - started < 5s);
    }
    SECTION("announces a port where nothing answers /health")
    {
        auto bin = script(d.path, "liar", "echo 'bench-server model=loop port=1 pid=0'; sleep 30");
        auto r = p.start(bin, {}, std::chrono::steady_clock::now() + 1s);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("/health"));
    }
    CHECK_FALSE(p.running());
}

#ifdef EXECBENCH_BENCH_SERVER_PATH
TEST_CASE("bench-server starts on a free port, answers /health and frees the port on SIGTERM", "[load][suite]")
{
    server_process p;
    auto r = p.start(EXECBENCH_BENCH_SERVER_PATH, {"--model", "fiber"}, std::chrono::steady_clock::now() + 20s);
    REQUIRE(r);
    CHECK(p.port() > 0);
    CHECK_THAT(p.start_line(), Catch::Contains("model=fiber"));
    CHECK_FALSE(port_is_free(p.port()));
    auto port = p.port();
    auto stopped = p.stop(10s);
    CHECK(stopped);
    CHECK(port_is_free(port));
}

TEST_CASE("a suite records failed and not-run entries and goes on", "[load][suite][integration]")
{
    temp_dir d("execbench-suite-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    write(scen / "tiny.json",
          R"({"description": "tiny", "suites": ["t"], "requests": [{"path": "/io?delayInMillis=200"}],
        "load": {"shape": "burst", "requests": 5}, "trials": 2, "pause": "50ms", "timeout": "5s"})");
    write(scen / "huge.json", R"({"description": "beyond any open-file limit", "suites": ["t"],
        "requests": [{"path": "/epoch-millis?delayCallDepth=3&delayInMillis=1"}],
        "load": {"shape": "closed", "connections": 400000, "duration": "1s"}})");
    auto selected = select_scenarios(scen, "t", {"tiny", "huge"});
    REQUIRE(selected);
    REQUIRE(selected->size() == 2);
    CHECK(selected->front().name == "huge");  // the suite's order, not the order named

    suite_options o;
    o.suite = "t";
    o.scenarios = {(*selected)[1], (*selected)[0]};  // tiny first: its runs are entries 0 and 1
    o.out_dir = d.path / "out";
    o.start_timeout = 20s;
    std::vector<std::size_t> seen;
    o.on_run_start = [&](const suite_progress& p) {
        seen.push_back(p.index);
        CHECK(p.count == 4);
    };

    SECTION("a server binary that cannot start fails every run but the suite goes on")
    {
        o.models = {"pool", "loop"};
        o.server_binary = d.path / "missing-bench-server";
        auto entries = run_suite(o);
        REQUIRE(entries);
        REQUIRE(entries->size() == 4);
        CHECK((*entries)[0].status == run_status::failed);
        CHECK((*entries)[1].status == run_status::failed);
        CHECK((*entries)[2].status == run_status::not_run);
        CHECK_THAT((*entries)[2].message, Catch::Contains("open-file limit"));
        auto ledger = read_ledger(ledger_path(o.out_dir, "t"));
        REQUIRE(ledger);
        CHECK(ledger->size() == 4);
        CHECK(seen == std::vector<std::size_t>{1, 2, 3, 4});
    }
    SECTION("a real server: results, server timeline and ledger are written")
    {
        o.models = {"loop", "pool"};
        o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
        o.server_sample_period = 50ms;
        auto entries = run_suite(o);
        REQUIRE(entries);
        REQUIRE(entries->size() == 4);
        CHECK((*entries)[0].status == run_status::ok);
        CHECK((*entries)[0].model == "loop");
        CHECK((*entries)[1].status == run_status::ok);
        CHECK_FALSE((*entries)[0].run_id.empty());
        auto summary = read_csv(o.out_dir / "t.csv");
        REQUIRE(summary);
        CHECK(summary->rows.size() == 2);
        auto server = read_csv(server_timeline_path(o.out_dir, "t"));
        REQUIRE(server);
        // Two trials per model, each 200 ms long, so the 50 ms sampler reads each at least once.
        CHECK(server->rows.size() >= 4);
        CHECK(std::filesystem::exists(o.out_dir / "t-timeline.csv"));
    }
}

TEST_CASE("interleaved rounds follow the seed and merge each arm's trials into one result",
          "[load][suite][integration]")
{
    temp_dir d("execbench-suite-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    write(scen / "tiny.json", R"({"description": "tiny", "suites": ["t"], "requests": [{"path": "/io?delayInMillis=5"}],
        "load": {"shape": "burst", "requests": 5}, "trials": 3, "pause": "10ms", "timeout": "5s"})");
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(scen, "tiny").value()};
    o.out_dir = d.path / "out";
    o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
    o.server_sample_period = 50ms;
    o.arms = {{"a", "loop", {}}, {"b", "loop", {{"threads", "2"}}}};
    o.seed = 7;
    std::vector<std::pair<unsigned, std::string>> ran;
    o.on_run_start = [&](const suite_progress& p) {
        ran.emplace_back(p.round, p.arm);
        CHECK(p.count == 6);
        CHECK(p.rounds == 3);
    };
    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(entries->size() == 2);
    CHECK((*entries)[0].arm_name() == "a");
    CHECK((*entries)[1].arm_name() == "b");
    CHECK((*entries)[0].status == run_status::ok);

    std::vector<std::pair<unsigned, std::string>> expected;
    for (unsigned round = 1; round <= 3; ++round)
        for (auto k : round_order(2, 7, round))
            expected.emplace_back(round, k == 0 ? "a" : "b");
    CHECK(ran == expected);

    auto trials = read_csv(o.out_dir / "t-trials.csv");
    REQUIRE(trials);
    REQUIRE(trials->rows.size() == 6);
    std::map<std::string, std::vector<std::string>> trial_numbers;
    std::map<std::string, std::set<std::string>> run_ids;
    for (const auto& row : trials->rows) {
        auto arm = row[std::size_t(trials->column("arm"))];
        trial_numbers[arm].push_back(row[std::size_t(trials->column("trial"))]);
        run_ids[arm].insert(row[std::size_t(trials->column("run_id"))]);
        CHECK(row[std::size_t(trials->column("model"))] == "loop");
    }
    CHECK(trial_numbers["a"] == std::vector<std::string>{"1", "2", "3"});
    CHECK(trial_numbers["b"] == std::vector<std::string>{"1", "2", "3"});
    CHECK(run_ids["a"].size() == 1);  // one merged run per arm joins every file
    auto summary = read_csv(o.out_dir / "t.csv");
    REQUIRE(summary);
    REQUIRE(summary->rows.size() == 2);
    CHECK(summary->rows[0][std::size_t(summary->column("trials"))] == "3");

    std::ifstream ctx(o.out_dir / "t-context.jsonl");
    std::string line;
    std::vector<unsigned> rounds;
    while (std::getline(ctx, line)) {
        auto j = nlohmann::json::parse(line);
        CHECK(j["order"]["kind"] == "interleaved");
        CHECK(j["order"]["seed"] == 7);
        rounds.push_back(j["order"]["round"].get<unsigned>());
        if (j["arm"]["name"] == "b") {
            CHECK(j["arm"]["options"]["threads"] == "2");
            CHECK(j["server"]["health"]["threads"] == 2);
        }
        CHECK(j["server"]["health"].contains("listenBacklog"));
        CHECK(j["machine"].contains("loadavg_before"));
        CHECK(j["limits"]["rlimit_nofile"].get<std::uint64_t>() > 0);
    }
    CHECK(rounds.size() == 6);
    auto ledger = read_ledger(ledger_path(o.out_dir, "t"));
    REQUIRE(ledger);
    CHECK(ledger->size() == 2);
}

TEST_CASE("a capacity search counts in the progress: the runs after it show it done", "[load][suite][integration]")
{
    // peers, 2026-12-07: after its searches every run still showed their 9 minutes to come.
    temp_dir d("execbench-suite-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    write(scen / "cap.json", R"({"description": "a short search", "suites": ["t"],
        "requests": [{"path": "/io?delayInMillis=1"}],
        "load": {"shape": "open", "rate": 100, "connections": 4, "duration": "0.3s"}, "timeout": "5s",
        "capacity": {"slo": "p99<=500ms,errors=0,unsent=0", "start_rate": 100, "max_rate": 200,
                     "resolution_percent": 50, "trials": 1, "step_duration": "0.3s", "step_warmup": "0s"}})");
    write(scen / "tiny.json", R"({"description": "tiny", "suites": ["t"], "requests": [{"path": "/io?delayInMillis=5"}],
        "load": {"shape": "burst", "requests": 5}, "trials": 1, "pause": "10ms", "timeout": "5s"})");
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(scen, "cap").value(), load_named_scenario(scen, "tiny").value()};
    o.out_dir = d.path / "out";
    o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
    o.models = {"loop"};
    auto plan = plan_suite(o);
    REQUIRE(plan);
    REQUIRE(plan->scenarios.size() == 2);
    REQUIRE(plan->scenarios[0].capacity);
    REQUIRE(plan->scenarios[0].estimate > duration{});
    std::vector<suite_progress> seen;
    o.on_run_start = [&](const suite_progress& p) { seen.push_back(p); };
    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(seen.size() == 1);  // the search announces no run of its own
    CHECK(seen[0].scenario == "tiny");
    CHECK(seen[0].index == 2);
    CHECK(seen[0].count == plan->runs);
    CHECK(seen[0].remaining == plan->total - plan->scenarios[0].estimate);
}

TEST_CASE("a finished search counts once in what the plan learns from the journal, not once per arm", "[load][suite]")
{
    // tls, 2026-12-07: resumed after four searches of five arms, each arm journalled with its search's whole time,
    // the plan multiplied what was left by about twice what those searches had been off.
    temp_dir d("execbench-suite-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    write(scen / "cap.json", R"({"description": "a search", "suites": ["t"], "requests": [{"path": "/io"}],
        "load": {"shape": "open", "rate": 100, "connections": 4, "duration": "1s"}, "timeout": "5s",
        "capacity": {"slo": "p99<=500ms", "start_rate": 100, "max_rate": 6400, "resolution_percent": 10,
                     "trials": 1, "step_duration": "1s", "step_warmup": "1s"}})");
    write(scen / "tiny.json", R"({"description": "tiny", "suites": ["t"], "requests": [{"path": "/io"}],
        "load": {"shape": "closed", "connections": 2, "duration": "10s"}, "trials": 1, "timeout": "5s"})");
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(scen, "cap").value(), load_named_scenario(scen, "tiny").value()};
    o.out_dir = d.path / "out";
    o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
    o.models = {"loop", "coro"};
    journal_options jo;
    jo.source_digest = "d";
    jo.machine = "m";
    std::filesystem::create_directories(o.out_dir);
    auto record = journal::open(o.out_dir, "t", jo);
    REQUIRE(record);
    REQUIRE(record->begin(1));
    // The search took 3x its estimate; each arm's line holds the whole search's time.
    const double search = 3 * 2 * std::chrono::duration<double>(estimate_search(o.scenarios[0], o, 1)).count();
    REQUIRE(record->record_done({"cap", "loop", journal_kind::capacity}, "s1", search - 1));
    REQUIRE(record->record_done({"cap", "coro", journal_kind::capacity}, "s1", search));
    o.record = &*record;
    auto plan = plan_suite(o);
    REQUIRE(plan);
    REQUIRE(plan->scenarios.size() == 2);
    CHECK(plan->scenarios[1].basis == "files x3.00");
    CHECK(std::chrono::duration<double>(plan->scenarios[1].estimate).count() ==
          Approx(3 * 2 * std::chrono::duration<double>(estimate_run(o.scenarios[1], 1, {"loop", "loop", {}})).count())
              .epsilon(0.01));
}

TEST_CASE("an overload runs each arm at its multiple of its own capacity, and an arm without one says why",
          "[load][suite][integration]")
{
    temp_dir d("execbench-suite-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    write(scen / "over.json", R"({"description": "overload", "suites": ["t"], "requests": [{"path": "/io?delayInMillis=5"}],
        "load": {"shape": "open", "rate": {"capacity_of": "cap", "times": 2}, "connections": 20, "duration": "1s"},
        "timeout": "5s"})");
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(scen, "over").value()};
    o.out_dir = d.path / "out";
    o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
    o.models = {"pool", "fiber", "loop", "coro"};
    o.capacity_from = capacity_paths_in(d.path / "capacity");

    auto missing = run_suite(o);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.err().message, Catch::Contains("run bench-suite --suite capacity first"));

    // pool: measured at 100 req/s, here; loop: only a lower bound; fiber: measured on another machine; coro: never
    // searched.
    std::filesystem::create_directories(d.path / "capacity");
    capacity_record pool;
    pool.run_id = "s1";
    pool.scenario = "cap";
    pool.arm = pool.model = "pool";
    pool.result.capacity_rps = 100;
    capacity_step met;
    met.offered_rps = met.achieved_rps = 100;
    met.connections = 20;
    met.met_slo = true;
    pool.result.steps = {met};
    REQUIRE(write_capacity(pool, o.capacity_from).ok());
    auto loop = pool;
    loop.run_id = "s2";
    loop.arm = loop.model = "loop";
    loop.result.what = capacity_result::outcome::above_max;
    REQUIRE(write_capacity(loop, o.capacity_from).ok());
    auto fiber = pool;
    fiber.run_id = "s3";
    fiber.arm = fiber.model = "fiber";
    REQUIRE(write_capacity(fiber, o.capacity_from).ok());
    {
        run_context here, elsewhere;
        here.run_id = "s1";
        here.machine = collect_context();
        elsewhere.run_id = "s3";
        elsewhere.machine = here.machine;
        elsewhere.machine.cpu_model = "Elsewhere CPU";
        std::ofstream ctx(o.capacity_from.context);
        ctx << to_json(here) << "\n" << to_json(elsewhere) << "\n";
    }

    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(entries->size() == 4);
    std::map<std::string, suite_entry> by_arm;
    for (const auto& e : *entries)
        by_arm[e.arm_name()] = e;
    CHECK(by_arm["pool"].status != run_status::not_run);
    CHECK_THAT(by_arm["pool"].message, Catch::Contains("rate 200 req/s: 2 × the capacity of cap, 100 req/s (search s1)"));
    CHECK(by_arm["fiber"].status == run_status::not_run);
    CHECK_THAT(by_arm["fiber"].message, Catch::Contains("its search s3 ran on Elsewhere CPU"));
    CHECK_THAT(by_arm["fiber"].message, Catch::Contains("--scenarios cap on this machine first"));
    CHECK(by_arm["coro"].status == run_status::not_run);
    CHECK_THAT(by_arm["coro"].message, Catch::Contains("holds no search of cap for arm coro"));
    CHECK(by_arm["loop"].status == run_status::not_run);
    CHECK_THAT(by_arm["loop"].message, Catch::Contains("measured no capacity"));

    auto summary = read_csv(o.out_dir / "t.csv");
    REQUIRE(summary);
    REQUIRE(summary->rows.size() == 1);  // the arms that did not run have a ledger line only
    CHECK(summary->rows[0][std::size_t(summary->column("rate"))] == "200");
    std::ifstream ctx(o.out_dir / "t-context.jsonl");
    std::string line;
    REQUIRE(std::getline(ctx, line));
    auto j = nlohmann::json::parse(line);
    CHECK(j["scenario"]["load"]["rate"] == 200);
    CHECK(j["scenario"]["load"]["rate_from"]["capacity_rps"] == 100);
    CHECK(j["scenario"]["load"]["rate_from"]["search"] == "s1");

    // A background at a multiple of the capacity (a storm beside measured clients) is resolved the same way.
    write(scen / "storm.json",
          R"({"description": "storm", "suites": ["t"], "requests": [{"path": "/io?delayInMillis=5"}],
        "load": {"shape": "open", "rate": 50, "connections": 5, "duration": "1s"},
        "background": {"requests": [{"path": "/epoch-millis?delayInMillis=0"}],
                       "load": {"shape": "open", "rate": {"capacity_of": "cap", "times": 1.5}, "connections": 10,
                                "duration": "2s", "requests_per_connection": 1}},
        "timeout": "5s"})");
    o.scenarios = {load_named_scenario(scen, "storm").value()};
    o.models = {"pool", "fiber"};
    o.out_dir = d.path / "storm";
    auto storm = run_suite(o);
    REQUIRE(storm);
    REQUIRE(storm->size() == 2);
    const auto& pool_storm = storm->front().arm_name() == "pool" ? storm->front() : storm->back();
    const auto& fiber_storm = storm->front().arm_name() == "pool" ? storm->back() : storm->front();
    CHECK(pool_storm.status != run_status::not_run);
    CHECK_THAT(pool_storm.message,
               Catch::Contains("background rate 150 req/s: 1.5 × the capacity of cap, 100 req/s (search s1)"));
    CHECK(fiber_storm.status == run_status::not_run);
    std::ifstream storm_ctx(o.out_dir / "t-context.jsonl");
    REQUIRE(std::getline(storm_ctx, line));
    j = nlohmann::json::parse(line);
    CHECK(j["scenario"]["load"]["rate"] == 50);
    CHECK(j["scenario"]["background"]["load"]["rate"] == 150);
}

TEST_CASE("bench-server --cpus pins the process and every thread, and default threads follow the mask",
          "[load][suite][cpus]")
{
    if (execbench::allowed_cpus().front() != 0) {
        WARN("CPU 0 is not available to this process; nothing to pin to");
        return;
    }
    server_process p;
    auto r = p.start(EXECBENCH_BENCH_SERVER_PATH, {"--model", "loop", "--cpus", "0"},
                     std::chrono::steady_clock::now() + 20s);
    REQUIRE(r);
    auto allowed_of = [](const std::filesystem::path& status) {
        std::ifstream in(status);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("Cpus_allowed_list:", 0) == 0)
                return line.substr(line.find_first_not_of(" \t", 18));
        return std::string{};
    };
    auto proc = std::filesystem::path("/proc") / std::to_string(p.pid());
    CHECK(allowed_of(proc / "status") == "0");
    CHECK(execbench::allowed_cpus_of(p.pid()) == "0");
    std::size_t threads = 0;
    for (const auto& task : std::filesystem::directory_iterator(proc / "task")) {
        CHECK(allowed_of(task.path() / "status") == "0");
        ++threads;
    }
    CHECK(threads >= 2);                                         // the main thread and at least one event loop
    CHECK_THAT(p.start_line(), Catch::Contains(" threads=1 "));  // loop: one event loop per CPU it may use
    CHECK(p.stop(10s));
}
#endif
