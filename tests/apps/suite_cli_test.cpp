// bench-suite from the command line, against real bench-servers on loopback: the selection and overrides checked
// before anything starts, the closing table, the SLO's exit status and a stop by signal.
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

using namespace execbench::test_support;
using namespace std::chrono_literals;

TEST_CASE("bench-suite checks its selection and overrides before it starts anything", "[cli][suite]")
{
    if (bench_suite_path().empty())
        return;
    temp_dir out("execbench-cli-suite");
    auto suite = [&](std::vector<std::string> extra) {
        std::vector<std::string> argv{bench_suite_path(), "--scenarios-dir", scenarios_dir(), "--out",
                                      out.path.string(),  "--quiet"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_tool(argv, 120s);
    };
    auto outside = suite({"--suite", "smoke", "--scenarios", "io-600"});
    CHECK(outside.code == 2);
    CHECK_THAT(outside.err, Catch::Contains("--scenarios: io-600 is not in suite smoke"));
    auto unused = suite({"--suite", "reactive", "--duration", "20s"});
    CHECK(unused.code == 2);
    CHECK_THAT(unused.err, Catch::Contains("--duration: not used by any selected scenario"));
    auto bad = suite({"--suite", "reactive", "--warmup", "5sec"});
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::StartsWith("bench-suite: --warmup: '5sec' is not a duration"));
    CHECK(bad.err.find("scenario(s) x") == std::string::npos);
    auto no_server = suite({"--suite", "smoke", "--server-bin", "/nonexistent/bench-server"});
    CHECK(no_server.code == 2);
    CHECK_THAT(no_server.err, Catch::Contains("--server-bin: '/nonexistent/bench-server' is not an executable"));
    auto typo = suite({"--suite", "reactiv"});
    CHECK(typo.code == 2);
    CHECK_THAT(typo.err, Catch::Contains("did you mean reactive?"));
    CHECK(std::filesystem::is_empty(out.path));
}

TEST_CASE("bench-suite's table shows no latency for an arm that answered nothing", "[cli][suite]")
{
    // The user review of 2026-12-03, item 12: such an arm read `0.0 0.0`, a perfect latency.
    if (bench_suite_path().empty() || bench_server_path().empty())
        return;
    temp_dir dir("execbench-cli-no-answer");
    std::filesystem::create_directories(dir.path / "scenarios");
    std::ofstream(dir.path / "scenarios" / "nothing-answers.json")
        << R"({"description": "every request a 404", "requests": [{"method": "GET", "path": "/no-such-endpoint"}],)"
           R"( "load": {"shape": "burst", "requests": 4, "connections": 2}, "warmup": "0s", "trials": 1})";
    auto r = run_tool({bench_suite_path(), "--scenarios-dir", (dir.path / "scenarios").string(), "--scenarios",
                       "nothing-answers", "--models", "loop", "--server-bin", bench_server_path(), "--out",
                       (dir.path / "out").string(), "--quiet"},
                      120s);
    INFO(r.err << r.out_text());
    auto row = std::find_if(r.out.begin(), r.out.end(),
                            [](const std::string& l) { return l.rfind("nothing-answers", 0) == 0; });
    REQUIRE(row != r.out.end());
    // scenario, arm, status, ok, errors, unsent, wall_ms, req/s, then p50_ms and p99_ms.
    std::istringstream cells(*row);
    std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    REQUIRE(words.size() >= 10);
    CHECK(words[2] == "errors");
    CHECK(words[8] == "-");
    CHECK(words[9] == "-");
    CHECK_THAT(r.out_text(), Catch::Contains("(p50_ms, p99_ms '-': no successful request, so no latency)"));
}

TEST_CASE("bench-suite --slo exits 3 naming the run and the gate", "[cli][suite][slo]")
{
    if (bench_suite_path().empty() || bench_server_path().empty())
        return;
    temp_dir out("execbench-cli-slo");
    auto r = run_tool({bench_suite_path(), "--scenarios-dir", scenarios_dir(), "--scenarios", "smoke-burst-io",
                       "--models", "loop", "--server-bin", bench_server_path(), "--out", out.path.string(), "--quiet",
                       "--trials", "1", "--slo", "p50<1ms"},
                      120s);
    INFO(r.err << r.out_text());
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("SLO broken: loop smoke-burst-io: p50<1ms: measured"));
}

TEST_CASE("bench-suite stopped by SIGTERM stops its bench-server too, as Ctrl-C does", "[cli][suite]")
{
    if (bench_suite_path().empty() || bench_server_path().empty())
        return;
    temp_dir out("execbench-cli-sigterm");
    child_process suite({bench_suite_path(), "--scenarios-dir", scenarios_dir(), "--scenarios", "closed-epoch-millis",
                         "--models", "loop", "--server-bin", bench_server_path(), "--out", out.path.string(),
                         "--trials", "1", "--duration", "60s", "--warmup", "0s"});
    // Its bench-server is its child; wait until it runs (bench-suite starts it before the first round's line).
    std::string children_path =
        "/proc/" + std::to_string(suite.pid()) + "/task/" + std::to_string(suite.pid()) + "/children";
    pid_t server = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 30s; server == 0;) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::ifstream children(children_path);
        children >> server;
        if (server == 0)
            std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(500ms);  // into the run
    suite.signal(SIGTERM);
    auto code = suite.wait_exit(60s);
    INFO(suite.stderr_text());
    REQUIRE(code);
    CHECK(*code == 1);  // stopped: the run is partial, the suite says so
    // The ledger says stopped, not `errors` (user review 2026-12-03, item 11).
    std::ifstream ledger(out.path / "adhoc-runs.csv");
    std::string text((std::istreambuf_iterator<char>(ledger)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Catch::Contains(",closed-epoch-millis,loop,loop,stopped,") &&
                         Catch::Contains("partial: stopped before all trials"));
    CHECK(text.find(",errors,") == std::string::npos);
    // The server was stopped and reaped by bench-suite, not left running as an orphan.
    CHECK_FALSE(std::filesystem::exists("/proc/" + std::to_string(server)));
    if (std::filesystem::exists("/proc/" + std::to_string(server)))
        ::kill(server, SIGKILL);  // this test's own grandchild
}
