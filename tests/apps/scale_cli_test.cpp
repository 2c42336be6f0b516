// bench-load's and bench-suite's --scale and --fit-to-limits as a user runs them (the scaling itself is unit-tested
// in tests/load/scenario/scale_test.cpp).
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/results.hpp"

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace execbench::load;
using namespace std::chrono_literals;
using execbench::test_support::temp_dir;

TEST_CASE("bench-load rejects a scale of 0 or less, or above 1, with exit 2", "[load][scale][process]")
{
    for (const char* bad : {"0", "1.5", "-1"}) {
        execbench::test_support::child_process p(
            {EXECBENCH_BENCH_LOAD_PATH, "--url", "http://127.0.0.1:9", "--scale", bad, "--quiet"});
        auto code = p.wait_exit(10s);
        REQUIRE(code);
        CHECK(*code == 2);
        CHECK_THAT(p.stderr_text(), Catch::Contains("bench-load: --scale: expected a factor greater than 0"));
    }
}

TEST_CASE("bench-suite rejects a scale above 1 before anything runs, with the --help hint", "[load][scale][process]")
{
    execbench::test_support::child_process p({EXECBENCH_BENCH_SUITE_PATH, "--scenarios", "smoke-closed-health-metrics",
                                              "--scenarios-dir", EXECBENCH_SOURCE_DIR "/scenarios", "--scale", "1.2",
                                              "--quiet"});
    auto code = p.wait_exit(10s);
    REQUIRE(code);
    CHECK(*code == 2);
    CHECK_THAT(p.stderr_text(), Catch::StartsWith("bench-suite: --scale: expected a factor greater than 0") &&
                                    Catch::EndsWith("Run with --help for the options.\n"));
}

TEST_CASE("bench-suite under a lowered RLIMIT_NOFILE runs scaled with --fit-to-limits, not at all without",
          "[load][scale][process][integration]")
{
    temp_dir d("execbench-scale-test");
    auto scen = d.path / "scenarios";
    std::filesystem::create_directories(scen);
    // With a limit of 256, 250 may be used: the generator needs 300 × F + 64, so F = 0.62 (186 connections).
    std::ofstream(scen / "wide.json") << R"({"description": "wide", "requests": [{"path": "/epoch-millis"}],
        "load": {"shape": "closed", "connections": 300, "duration": "1s", "think": "100ms"}, "timeout": "5s"})";
    // Each request calls the server back: the server needs 3 × 100 × F + 64, so F = 0.62 (62 connections).
    std::ofstream(scen / "deep.json") << R"({"description": "deep",
        "requests": [{"path": "/epoch-millis?delayCallDepth=1"}],
        "load": {"shape": "closed", "connections": 100, "duration": "1s", "think": "100ms"}, "timeout": "5s"})";
    auto suite = [&](const std::string& out, bool fit) {
        std::vector<std::string> argv{EXECBENCH_BENCH_SUITE_PATH,
                                      "--scenarios",
                                      "wide,deep",
                                      "--models",
                                      "loop",
                                      "--scenarios-dir",
                                      scen.string(),
                                      "--server-bin",
                                      EXECBENCH_BENCH_SERVER_PATH,
                                      "--out",
                                      (d.path / out).string(),
                                      "--warmup",
                                      "0s",
                                      "--trials",
                                      "1",
                                      "--quiet"};
        if (fit)
            argv.emplace_back("--fit-to-limits");
        execbench::test_support::child_process p(argv, 256u);
        auto code = p.wait_exit(120s);
        REQUIRE(code);
        INFO(p.stderr_text());
        CHECK(*code == 0);
        auto ledger = read_ledger(ledger_path(d.path / out, "adhoc"));
        REQUIRE(ledger);
        return *ledger;
    };

    SECTION("without the flag: not run, and the message names --fit-to-limits and the scale it would use")
    {
        auto ledger = suite("plain", false);
        REQUIRE(ledger.size() == 2);
        for (const auto& e : ledger) {
            CHECK(e.status == run_status::not_run);
            CHECK_THAT(e.message, Catch::Contains("`--fit-to-limits` would run it here at 0.62 scale"));
        }
        CHECK_THAT(ledger[0].message, Catch::Contains("(decided by the load generator's open-file limit"));
        CHECK_THAT(ledger[1].message, Catch::Contains("(decided by the server's open-file limit"));
        CHECK_THAT(ledger[0].message, Catch::StartsWith("not run: the load generator"));
        CHECK_THAT(ledger[1].message, Catch::StartsWith("not run: the server would need about 364 open files"));
    }
    SECTION("with it: run at the fitted scale, recorded with the limit that decided")
    {
        auto ledger = suite("fit", true);
        REQUIRE(ledger.size() == 2);
        CHECK(ledger[0].status == run_status::ok);
        CHECK(ledger[1].status == run_status::ok);
        auto summary = read_csv(d.path / "fit" / "adhoc.csv");
        REQUIRE(summary);
        REQUIRE(summary->rows.size() == 2);
        auto col = [&](std::size_t row, const char* name) {
            auto c = summary->column(name);
            REQUIRE(c >= 0);
            return summary->rows[row][static_cast<std::size_t>(c)];
        };
        CHECK(col(0, "scale") == "0.62");
        CHECK(col(0, "connections") == "186");
        CHECK(col(1, "scale") == "0.62");
        CHECK(col(1, "connections") == "62");
        auto trials = read_csv(d.path / "fit" / "adhoc-trials.csv");
        REQUIRE(trials);
        CHECK(trials->rows.at(0).at(static_cast<std::size_t>(trials->column("scale"))) == "0.62");
        std::ifstream ctx(d.path / "fit" / "adhoc-context.jsonl");
        std::string line;
        std::vector<std::string> decided;
        while (std::getline(ctx, line)) {
            auto j = nlohmann::json::parse(line);
            CHECK(j["scale"]["factor"].get<double>() == Approx(0.62));
            decided.push_back(j["scale"]["decided_by"].get<std::string>());
            CHECK_THAT(j["scale"]["note"].get<std::string>(), Catch::StartsWith("run at 0.62 scale: "));
        }
        CHECK(decided == std::vector<std::string>{"generator", "server"});
    }
}
