// A scenario with "tls": true under bench-suite: its server is reached over https, and the results say TLS.
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/run/arm.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

TEST_CASE("a TLS scenario's suite starts bench-server with --tls and its key, sends https to every arm and marks the "
          "rows tls=1",
          "[load][suite][tls][integration]")
{
    if (::access("/usr/sbin/nginx", X_OK) != 0 || ::access("/usr/bin/openssl", X_OK) != 0) {
        WARN("skipped: nginx or openssl is not installed (.ci/setup installs them)");
        return;
    }
    execbench::test_support::temp_dir d("execbench-tls-suite-test");
    std::filesystem::create_directories(d.path / "scenarios");
    std::ofstream(d.path / "scenarios" / "churn.json") << R"({"description": "churn over TLS", "suites": ["t"],
        "requests": [{"path": "/epoch-millis"}], "tls": true, "tls_key": "rsa2048",
        "load": {"shape": "burst", "requests": 40, "connections": 2, "requests_per_connection": 1},
        "trials": 1, "timeout": "5s"})";
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(d.path / "scenarios", "churn").value()};
    REQUIRE(o.scenarios.front().tls);
    o.out_dir = d.path / "out";
    o.server_binary = execbench::test_support::bench_server_path();
    // nginx's files go under the test's folder, not /tmp, where a test beside this one looks for its leftovers.
    auto nginx = parse_arm("nginx=cmd:exec env TMPDIR='" + d.path.string() + "' '" + std::string(EXECBENCH_SOURCE_DIR) +
                           "/peers/nginx/run' {port} 1 1024 tls {tls_key}");
    REQUIRE(nginx);
    o.arms = {*nginx, {"loop", "loop", {}}};
    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(entries->size() == 2);
    for (const auto& e : *entries) {
        INFO(e.arm_name() << ": " << e.message);
        CHECK(e.status == run_status::ok);
    }
    auto summary = read_csv(o.out_dir / "t.csv");
    REQUIRE(summary);
    REQUIRE(summary->rows.size() == 2);
    for (const auto& row : summary->rows) {
        auto cell = [&](std::string_view name) { return row.at(std::size_t(summary->column(name))); };
        INFO(cell("arm"));
        CHECK(cell("tls") == "1");
        CHECK(cell("url").starts_with("https://127.0.0.1:"));
        CHECK(cell("requests_ok") == "40");
        CHECK(cell("connections_opened") == "40");
        CHECK(cell("tls_handshakes_full") == "2");
        CHECK(cell("tls_handshakes_resumed") == "38");
    }
    // The key went to both servers (nginx would refuse a literal '{tls_key}'); bench-server's /health says which.
    std::ifstream context(o.out_dir / "t-context.jsonl");
    std::string line;
    unsigned lines = 0, bench_server_rsa = 0;
    while (std::getline(context, line)) {
        ++lines;
        CHECK(line.find(R"("tls_key":"rsa2048")") != std::string::npos);
        bench_server_rsa += line.find(R"("tlsKey":"rsa2048")") != std::string::npos ? 1 : 0;
    }
    CHECK(lines == 2);
    CHECK(bench_server_rsa == 1);
}
