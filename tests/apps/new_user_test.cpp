// What a new user met on 3f90967 (issue 58): each case is a habit from wrk, hey or a shell that used to end in a run
// of the wrong server, overwritten pages, a run that could not succeed or a misleading hint.
#include "support/child_process.hpp"
#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace execbench::test_support;
using namespace std::chrono_literals;

namespace {

// A loopback port nothing listens on: bound, read and released (the kernel hands it out again only after others).
std::uint16_t free_port()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t length = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
    ::close(fd);
    return ntohs(addr.sin_port);
}

// The children of `pid` (Linux lists them per thread in /proc/PID/task/TID/children).
std::vector<pid_t> children_of(pid_t pid)
{
    std::vector<pid_t> out;
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    for (pid_t child = 0; in >> child;)
        out.push_back(child);
    return out;
}

// True while `pid` exists and is not a zombie (an orphan is reaped by init at once).
bool running(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return false;
    const auto after_name = line.rfind(')');
    return after_name != std::string::npos && line.size() > after_name + 2 && line[after_name + 2] != 'Z';
}

}  // namespace

TEST_CASE("bench-load: -H takes one header, and the URL after it is the one loaded", "[cli][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    const auto url = "http://127.0.0.1:" + std::to_string(server.port()) + "/io?delayInMillis=1";
    // wrk's and hey's order: flags, then the URL. Before, -H swallowed the URL as a second header and the run went
    // to 127.0.0.1:8080.
    auto r = run_tool({bench_load_path(), "-c", "1", "-n", "2", "-H", "X-Test: 1", "--warmup", "0s", url});
    INFO(r.err << r.out_text());
    CHECK(r.code == 0);
    CHECK_THAT(r.err, Catch::Contains(std::to_string(server.port()) + "/io?delayInMillis=1"));
    CHECK(r.err.find("no path in --url") == std::string::npos);

    // A header forgotten before the URL: the URL is not taken for a header named "http".
    auto forgot = run_tool({bench_load_path(), "-c", "1", "-n", "2", "-H", url});
    CHECK(forgot.code == 2);
    CHECK_THAT(forgot.err, Catch::Contains("is a URL, not \"Name: value\""));
}

TEST_CASE("bench-load: a bad --duration gets hey's -d hint only when -d was typed", "[cli][load][integration]")
{
    if (bench_load_path().empty())
        return;
    auto spelt_out = run_tool({bench_load_path(), "--duration", "5x", "http://127.0.0.1:1/"});
    CHECK(spelt_out.code == 2);
    CHECK_THAT(spelt_out.err, Catch::Contains("--duration: '5x' is not a duration"));
    CHECK(spelt_out.err.find("hey's") == std::string::npos);
    auto as_d = run_tool({bench_load_path(), "-d", "5x", "http://127.0.0.1:1/"});
    CHECK(as_d.code == 2);
    CHECK_THAT(as_d.err, Catch::Contains("for hey's and oha's -d (a request body)"));
}

TEST_CASE("bench-report --results elsewhere writes its pages beside them and leaves the committed ones alone",
          "[cli][report]")
{
    if (bench_report_path().empty())
        return;
    temp_dir repo("execbench-new-user-repo");
    temp_dir scratch("execbench-new-user-scratch");
    write_file(repo.path / "README.md", "# a repository\n");
    write_file(repo.path / "docs/results/index.html", "committed\n");
    fake_suite(scratch.path);
    // As typed in the repository's root: before, this rewrote docs/results/index.html, summary.svg and charts.txt.
    auto r = run_tool({"/bin/sh", "-c",
                       "cd '" + repo.path.string() + "' && exec '" + bench_report_path() + "' --results '" +
                           scratch.path.string() + "' --no-charts"});
    INFO(r.err << r.out_text());
    CHECK(r.code == 0);
    CHECK(read_back(repo.path / "docs/results/index.html") == "committed\n");
    CHECK(read_back(repo.path / "README.md") == "# a repository\n");
    CHECK(std::filesystem::exists(scratch.path / "pages" / "index.html"));
    CHECK(std::filesystem::exists(scratch.path / "pages" / "s.md"));
    CHECK_THAT(r.out_text(), Catch::Contains((scratch.path / "pages").string()));
}

TEST_CASE("bench-suite refuses a url: arm where nothing listens before it runs anything", "[cli][suite]")
{
    if (bench_suite_path().empty())
        return;
    temp_dir out("execbench-new-user-url-arm");
    const auto url = "http://127.0.0.1:" + std::to_string(free_port());
    auto r = run_tool({bench_suite_path(), "--scenarios-dir", scenarios_dir(), "--scenarios", "smoketest", "--arm",
                       "mine=url:" + url, "--out", (out.path / "run").string(), "--quiet"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--arm mine=url:" + url) && Catch::Contains("connection refused"));
    CHECK_FALSE(std::filesystem::exists(out.path / "run"));
}

TEST_CASE("bench-suite stopped by Ctrl-C leaves no empty results folder and no server behind", "[cli][suite]")
{
    if (bench_suite_path().empty() || bench_server_path().empty())
        return;
    temp_dir out("execbench-new-user-sigint");
    const auto folder = out.path / "run";
    child_process suite({bench_suite_path(), "--scenarios-dir", scenarios_dir(), "--scenarios", "io-600", "--models",
                         "loop", "--out", folder.string(), "--quiet"});
    REQUIRE(eventually([&] { return std::filesystem::exists(folder); }, 20s));
    // The bench-server it started for the run, read from the kernel's list of its children.
    std::vector<pid_t> servers;
    REQUIRE(eventually([&] { return !(servers = children_of(suite.pid())).empty(); }, 20s));
    // Two signals 20 ms apart: the first ends the run early (exit 1), and when the second comes before that end it
    // exits at once (130). Which of the two wins is the scheduler's; neither may leave the empty folder behind.
    suite.signal(SIGINT);
    std::this_thread::sleep_for(20ms);
    suite.signal(SIGINT);
    const auto code = suite.wait_exit(10s);
    INFO(suite.stderr_text());
    CHECK((code == 1 || code == 130));
    CHECK_FALSE(std::filesystem::exists(folder));
    // Either way the server went with it: the first signal stops it, the second kills its process group.
    for (pid_t server : servers) {
        INFO("bench-server " << server);
        CHECK(eventually([&] { return !running(server); }, 10s));
    }
}
