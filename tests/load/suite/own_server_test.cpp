// A server of the user's as an arm (docs/own-server.md): started by command on a port picked here, stopped with its
// whole process group, measured over its whole process tree, beside bench-server's models.
#include "execbench/load/results/results.hpp"
#include "execbench/load/scenario/scenario_json.hpp"
#include "execbench/load/suite/server_process.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"
#include "execbench/stats/sampler.hpp"

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include <signal.h>
#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;
using execbench::stats::proc_source;
using execbench::stats::process_tree;
using execbench::stats::sample_depth;
using execbench::stats::sample_process;

namespace {

/// nginx from the PATH or Debian's place; empty when it is not installed.
std::string nginx_path()
{
    for (const char* p : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"})
        if (::access(p, X_OK) == 0)
            return p;
    return {};
}

/// A suite of one scenario, `name`.json holding `json`, written under `dir`, its results in `dir`/out.
suite_options one_scenario_suite(const std::filesystem::path& dir, const std::string& name, const std::string& json)
{
    auto scen = dir / "scenarios";
    std::filesystem::create_directories(scen);
    std::ofstream(scen / (name + ".json")) << json;
    suite_options o;
    o.suite = "t";
    o.scenarios = {execbench::load::load_named_scenario(scen, name).value()};
    o.out_dir = dir / "out";
    o.server_binary = execbench::test_support::bench_server_path();
    o.server_sample_period = 50ms;
    return o;
}

bool alive(pid_t pid)
{
    return ::kill(pid, 0) == 0;
}

double column_of(const csv_table& t, std::size_t row, std::string_view name)
{
    auto c = t.column(name);
    REQUIRE(c >= 0);
    return std::stod(t.rows.at(row).at(std::size_t(c)));
}

}  // namespace

TEST_CASE("a process is read with its descendants: a master's workers are its figures", "[stats][integration]")
{
    // A shell that only waits, and its child that spins: the child's CPU and thread are the tree's.
    execbench::test_support::child_process shell({"/bin/sh", "-c", "(while :; do :; done) & echo $!; wait"});
    auto spinner = static_cast<pid_t>(std::stol(shell.read_line(5s)));
    struct stop_spinner {
        pid_t pid;
        ~stop_spinner() { ::kill(pid, SIGKILL); }
    } stop{spinner};
    auto tree = process_tree(shell.pid());
    REQUIRE(tree == std::vector<pid_t>{shell.pid(), spinner});
    auto source = proc_source(shell.pid());
    auto first = source(sample_depth::full);
    std::this_thread::sleep_for(1s);
    auto cheap = source(sample_depth::cheap);
    auto alone = sample_process(shell.pid());
    REQUIRE(first);
    REQUIRE(cheap);
    REQUIRE(alone);
    CHECK(first->threads == 2);
    CHECK(cheap->threads == 2);
    // The spinner used a good part of the second, even on a busy machine; the waiting shell close to none.
    CHECK(cheap->cpu_seconds - first->cpu_seconds > 0.1);
    CHECK(alone->cpu_seconds < 0.1);
    CHECK(cheap->resident_bytes > alone->resident_bytes);
    CHECK(process_tree(999'999'999).empty());
}

TEST_CASE("a command arm starts on the port it is given and stops with its whole process group",
          "[load][suite][integration]")
{
    server_process p;
    auto deadline = [] { return std::chrono::steady_clock::now() + 20s; };
    SECTION("ready when its port accepts a connection; a child it forked is stopped with it")
    {
        auto command = "sleep 300 & exec '" + execbench::test_support::bench_server_path() +
                       "' --model loop --host 127.0.0.1 --port {port}";
        REQUIRE(p.start_command(command, "", "", "", deadline()));
        CHECK_FALSE(port_is_free(p.port()));
        auto tree = process_tree(p.pid());
        REQUIRE(tree.size() == 2);  // bench-server (the shell exec'd it) and the sleep
        auto port = p.port();
        CHECK(p.stop(10s));
        CHECK(port_is_free(port));
        CHECK_FALSE(alive(tree[1]));
    }
    SECTION("with a ready path, ready when it answers 2xx there")
    {
        auto command = execbench::test_support::bench_server_path() + " --model fiber --port {port}";
        REQUIRE(p.start_command(command, "", "", "/health", deadline()));
        CHECK(p.stop(10s));
    }
    SECTION("a command that daemonizes or exits is an error that says so, with its stderr")
    {
        auto r = p.start_command("echo 'bind() to {port} failed' >&2; exit 0", "", "", "", deadline());
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("exited with status 0"));
        CHECK_THAT(r.err().message, Catch::Contains("stay in the foreground"));
        CHECK_THAT(r.err().message, Catch::Contains("bind() to"));
    }
    SECTION("a command that never listens gives up at the deadline")
    {
        auto started = std::chrono::steady_clock::now();
        auto r = p.start_command("sleep 30 # {port}", "", "", "", started + 500ms);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("in time"));
        CHECK(std::chrono::steady_clock::now() - started < 5s);
    }
    CHECK_FALSE(p.running());
}

TEST_CASE("nginx runs as an arm beside the loop: a verdict's inputs, with its workers' figures",
          "[load][suite][integration]")
{
    if (nginx_path().empty()) {
        WARN("skipped: nginx is not installed (.ci/setup installs it)");
        return;
    }
    execbench::test_support::temp_dir d("execbench-own-server-test");
    auto o = one_scenario_suite(d.path, "hot", R"({"description": "hot path", "suites": ["t"],
        "requests": [{"path": "/epoch-millis?delayInMillis=0"}],
        "load": {"shape": "open", "rate": 3000, "connections": 100, "duration": "1s"},
        "trials": 2, "pause": "100ms", "timeout": "5s"})");
    // 100 connections carry the rate through a 30 ms stall of a busy CI machine; 20 left 2 requests unsent once.
    auto nginx = parse_arm("nginx=cmd:exec '" + std::string(EXECBENCH_SOURCE_DIR) + "/peers/nginx/run' {port}");
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
    auto arm = summary->column("arm");
    REQUIRE(summary->rows[0][std::size_t(arm)] == "nginx");
    // The master alone reads 0 % CPU and one thread: the worker is what served, and it is counted. The tree is the
    // run script's shell (it removes nginx's folder afterwards), the master and its worker, one thread each.
    CHECK(column_of(*summary, 0, "server_cpu_percent_avg") > 0);
    CHECK(column_of(*summary, 0, "server_threads_max") == 3);
    CHECK(column_of(*summary, 0, "requests_ok") >= 2500);
    CHECK(column_of(*summary, 1, "server_cpu_percent_avg") > 0);
    // Nothing of nginx outlives the suite: its run script removed its temporary folder as it stopped.
    for (const auto& entry : std::filesystem::directory_iterator("/tmp"))
        CHECK_FALSE((entry.path().filename().string().starts_with("execbench-nginx.") &&
                     std::filesystem::last_write_time(entry) >
                         std::filesystem::file_time_type::clock::now() - std::chrono::minutes{1}));
}

TEST_CASE("a url arm measures a server that is already running, found by its port", "[load][suite][integration]")
{
    execbench::test_support::temp_dir d("execbench-own-server-test");
    auto o = one_scenario_suite(d.path, "tiny", R"({"description": "tiny", "suites": ["t"],
        "requests": [{"path": "/io?delayInMillis=5"}], "load": {"shape": "burst", "requests": 20},
        "trials": 2, "pause": "10ms", "timeout": "5s"})");
    server_process running;
    REQUIRE(running.start(execbench::test_support::bench_server_path(), {"--model", "coro"},
                          std::chrono::steady_clock::now() + 20s));
    auto mine = parse_arm("mine=url:" + running.url());
    REQUIRE(mine);
    o.arms = {*mine};
    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(entries->size() == 1);
    CHECK((*entries)[0].status == run_status::ok);
    // The suite neither started nor stopped it.
    CHECK(running.running());
    CHECK_FALSE(port_is_free(running.port()));
    std::ifstream ctx(o.out_dir / "t-context.jsonl");
    std::string line;
    REQUIRE(std::getline(ctx, line));
    CHECK_THAT(line, Catch::Contains("\"pid\":" + std::to_string(running.pid())));
    CHECK(running.stop(10s));
}
