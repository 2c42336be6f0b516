// bench-load, the binary, against misbehaving servers: every fault is classified in the results file, the run ends
// within its bound, and the exit code says the results have errors. load/run/runner_test.cpp covers the same faults
// through the library and a server dying mid-run through the binary; this covers the rest through the binary,
// plus memory over a long open-loop run and the refusal of remote targets.
#include "support/child_process.hpp"
#include "support/misbehaving_server.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

using namespace execbench::test_support;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// The value of `column` in the last row of the CSV at `path`.
std::string csv_value(const std::filesystem::path& path, const std::string& column)
{
    std::ifstream in(path);
    std::string header;
    std::string row;
    std::string line;
    std::getline(in, header);
    while (std::getline(in, line))
        if (!line.empty())
            row = line;
    auto split = [](const std::string& text) {
        std::vector<std::string> cells;
        std::stringstream stream(text);
        std::string cell;
        while (std::getline(stream, cell, ','))
            cells.push_back(cell);
        return cells;
    };
    auto names = split(header);
    auto values = split(row);
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
        if (names[i] == column)
            return values[i];
    return "<no column " + column + ">";
}

}  // namespace

TEST_CASE("bench-load classifies each faulty server, ends in time, writes results and exits 1", "[load][faults]")
{
    if (bench_load_path().empty())
        return;
    struct fault {
        const char* what;
        misbehaving_server::behaviour behaviour;
        const char* error_column;
    };
    const std::vector<fault> faults = {
        {"accepts but never answers", misbehaving_server::behaviour::never_answer, "errors_request_timeout"},
        {"answers garbage", misbehaving_server::behaviour::garbage, "errors_bad_response"},
        {"closes after one response", misbehaving_server::behaviour::close_after_one, "errors_reset"},
    };
    temp_dir dir("execbench-faults");
    for (const auto& f : faults) {
        INFO(f.what);
        misbehaving_server server(f.behaviour);
        auto out = dir.path / (std::string(f.error_column) + ".csv");
        auto t0 = clock_type::now();
        child_process load({bench_load_path(),
                            "--quiet",
                            "--allow-errors",
                            "--url",
                            server.url(),
                            "--path",
                            "/",
                            "--shape",
                            "closed",
                            "--connections",
                            "2",
                            "--duration",
                            "1s",
                            "--timeout",
                            "500ms",
                            "--trials",
                            "1",
                            "--warmup",
                            "0s",
                            "--out",
                            out.string()});
        auto code = load.wait_exit(20s);
        REQUIRE(code.has_value());
        INFO("stderr: " << load.stderr_text());
        CHECK(*code == 1);
        CHECK(seconds_since(t0) < 10.0);
        REQUIRE(std::filesystem::exists(out));
        CHECK(csv_value(out, f.error_column) != "0");
        CHECK(csv_value(out, "requests_error") != "0");
    }
    {
        INFO("a port that refuses connections");
        auto out = dir.path / "refused.csv";
        refused_port nothing;
        auto t0 = clock_type::now();
        child_process load({bench_load_path(),
                            "--quiet",
                            "--allow-errors",
                            "--url",
                            nothing.url(),
                            "--path",
                            "/",
                            "--shape",
                            "burst",
                            "--connections",
                            "4",
                            "--requests",
                            "4",
                            "--trials",
                            "1",
                            "--warmup",
                            "0s",
                            "--timeout",
                            "1s",
                            "--out",
                            out.string()});
        auto code = load.wait_exit(20s);
        REQUIRE(code.has_value());
        INFO("stderr: " << load.stderr_text());
        CHECK(*code == 1);
        CHECK(seconds_since(t0) < 10.0);
        REQUIRE(std::filesystem::exists(out));
        CHECK(csv_value(out, "errors_connect_refused") == "4");
    }
}

TEST_CASE("bench-load refuses a non-loopback target unless --allow-remote is given", "[load][security]")
{
    if (bench_load_path().empty())
        return;
    child_process load({bench_load_path(), "--quiet", "--url", "http://192.0.2.1:8080", "--path", "/", "--shape",
                        "burst", "--connections", "1", "--requests", "1", "--trials", "1"});
    auto code = load.wait_exit(10s);
    REQUIRE(code.has_value());
    CHECK(*code == 2);
    CHECK(load.stderr_text().find("--allow-remote") != std::string::npos);
}

// Sanitizer builds keep freed memory in quarantine and shadow every allocation: resident memory says nothing about
// our code there, so the test exists only where it can measure (the Release run).
#ifndef EXECBENCH_SANITIZER
TEST_CASE("bench-load's memory stays flat over a long open-loop run", "[load][faults][memory]")
{
    if (bench_load_path().empty())
        return;
    misbehaving_server server;
    temp_dir dir("execbench-flat");
    child_process load({bench_load_path(),
                        "--quiet",
                        "--allow-errors",
                        "--url",
                        server.url(),
                        "--path",
                        "/",
                        "--shape",
                        "open",
                        "--rate",
                        "3000",
                        "--connections",
                        "16",
                        "--duration",
                        "12s",
                        "--trials",
                        "1",
                        "--warmup",
                        "0s",
                        "--timeout",
                        "2s",
                        "--out",
                        (dir.path / "flat.csv").string()});
    std::this_thread::sleep_for(3s);
    const long early = resident_kib(load.pid());
    std::this_thread::sleep_for(8s);
    const long late = resident_kib(load.pid());
    INFO("bench-load RSS KiB after 3 s " << early << ", after 11 s " << late << "; requests answered "
                                         << server.answered());
    REQUIRE(early > 0);
    REQUIRE(late > 0);
    // 24000 more requests in between: per-request state would show as megabytes; the per-second timeline is
    // a few hundred bytes a second.
    CHECK(late - early < 4 * 1024);
    auto code = load.wait_exit(20s);
    REQUIRE(code.has_value());
    CHECK(*code == 0);
    CHECK(server.answered() > 10'000);
}
#endif
