#include "execbench/load/profile/profiler.hpp"

#include "execbench/core/file.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace execbench::load;
using namespace std::chrono_literals;

TEST_CASE("a profiled suite run writes a flame graph of the server's own code, outside the measured trials",
          "[load][profile][integration]")
{
    if (auto why = perf_unavailable()) {
        WARN("skipped: " << *why);
        return;
    }
    execbench::test_support::temp_dir d("execbench-profile-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    // /cpu keeps the server on its core: /epoch-millis waits 100 ms, and its few milliseconds of CPU gave perf three
    // or four samples, in which the server's own frames were sometimes missing.
    std::ofstream(scen / "tiny.json") << R"({"description": "tiny", "suites": ["t"],
        "requests": [{"path": "/cpu?iterations=20000"}],
        "load": {"shape": "closed", "connections": 4, "duration": "2s"},
        "warmup": "200ms", "trials": 1, "timeout": "5s"})";
    suite_options o;
    o.suite = "t";
    o.scenarios = {execbench::load::load_named_scenario(scen, "tiny").value()};
    o.out_dir = d.path / "out";
    o.server_binary = EXECBENCH_BENCH_SERVER_PATH;
    o.arms = {{"loop", "loop", {}}};
    o.profile = true;
    std::vector<profile_event> profiled;
    std::vector<bool> marked;
    o.on_run_start = [&](const suite_progress& p) { marked.push_back(p.profiled); };
    o.on_profile_done = [&](const profile_event& ev) {
        profiled.push_back(ev);
        if (ev.capture)
            CHECK(ev.capture->requests() > 0);
    };
    auto entries = run_suite(o);
    REQUIRE(entries);
    CHECK(marked == std::vector<bool>{false, true});  // the profiled trial comes last and says so
    REQUIRE(profiled.size() == 1);
    CHECK(profiled[0].unprofiled_rps > 0);
    if (!profiled[0].capture) {
        // perf is there but may not watch another process here (perf_event_paranoid, no CAP_PERFMON).
        WARN("skipped: perf could not profile: " << profiled[0].message);
        return;
    }
    auto folded = execbench::read_file(profile_path(o.out_dir, "tiny", "loop", "folded"));
    REQUIRE(folded);
    CHECK(folded->find("execbench::") != std::string::npos);
    auto svg = execbench::read_file(profile_path(o.out_dir, "tiny", "loop", "svg"));
    REQUIRE(svg);
    CHECK(svg->find("<title>execbench::") != std::string::npos);
    auto counts = read_profile_csv(profile_path(o.out_dir, "tiny", "loop", "csv"));
    REQUIRE(counts);
    CHECK(counts->trial("requests") > 0);
    if (counts->find("syscall", "all")) {  // perf stat may lack tracefs where record works
        CHECK(counts->find("syscall", "all")->per_request > 0);
        CHECK(counts->find("cpu", "cpu_micros")->per_request > 0);
    }

    // The profiled trial is in none of the measured files.
    auto trials = read_csv(o.out_dir / "t-trials.csv");
    REQUIRE(trials);
    CHECK(trials->rows.size() == 1);
    auto run_id = trials->rows[0][std::size_t(trials->column("run_id"))];
    CHECK(run_id != counts->run_id);
    auto ledger = read_ledger(ledger_path(o.out_dir, "t"));
    REQUIRE(ledger);
    CHECK(ledger->size() == 1);
    auto context = execbench::read_file(o.out_dir / "t-context.jsonl");
    REQUIRE(context);
    CHECK(context->find(counts->run_id) == std::string::npos);
}

TEST_CASE("without perf, a profile says so and nothing runs under it", "[load][profile][integration]")
{
    profile_options p;
    p.perf = "/nonexistent/perf";
    auto why = perf_unavailable(p);
    REQUIRE(why);
    CHECK(why->find("perf is not installed") != std::string::npos);
    run_options ro;
    ro.url = "http://127.0.0.1:9";
    scenario s;
    auto r = run_profiled(s, ro, p);
    REQUIRE_FALSE(r);
    CHECK(r.err().message.find("not installed") != std::string::npos);
}
