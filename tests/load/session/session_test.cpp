// The session: one owner of a run, from the target it opens once to the exit status bench-load returns.
#include "execbench/load/session/session.hpp"

#include "support/child_process.hpp"
#include "support/one_trial_scenario.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace execbench::load;
using namespace std::chrono_literals;
using execbench::test_support::option_server;
using execbench::test_support::temp_dir;

namespace {

/// `requests` GETs of `path` at once on as many connections, one trial.
scenario burst_of(const std::string& path, std::uint64_t requests)
{
    auto s = execbench::test_support::one_trial_of(path, shape::burst, 5s, "session-test");
    s.load.requests = requests;
    s.load.connections = requests;
    return s;
}

/// Options aimed at 127.0.0.1:`port` that keep what the session tells the person at the terminal.
struct told {
    std::vector<std::string> notes;  ///< session_options::note
    std::vector<std::string> lines;  ///< session_options::print

    session_options against(std::uint16_t port)
    {
        session_options o;
        o.run.url = "http://127.0.0.1:" + std::to_string(port);
        o.note = [this](const std::string& text) { notes.push_back(text); };
        o.print = [this](const std::string& text) { lines.push_back(text); };
        return o;
    }
};

/// A loop server in this process, a folder for --out, and what a session against it said.
struct live_server : told {
    option_server server{one_loop_thread()};
    temp_dir dir;

    session_options options() { return against(server.port()); }

    static execbench::server::options one_loop_thread()
    {
        execbench::server::options opts;
        opts.threads = 1;
        opts.cpu_threads = 1;
        return opts;
    }
};

}  // namespace

TEST_CASE("a session refuses a target off this machine before any request", "[session]")
{
    session_options o;
    o.run.url = "http://192.0.2.1:8080";  // TEST-NET-1: never this machine
    auto opened = session::open(burst_of("/health", 1), o);
    REQUIRE_FALSE(opened);
    CHECK_THAT(opened.err().message, Catch::Contains("not loopback") && Catch::Contains("--allow-remote"));
}

TEST_CASE("a session runs, prints, writes and ends ok against a live server", "[session]")
{
    live_server live;
    auto o = live.options();
    o.out = live.dir.path / "run.csv";
    auto opened = session::open(burst_of("/epoch-millis?delayInMillis=0", 20), o);
    REQUIRE(opened);
    auto exit = opened->execute();
    REQUIRE(exit);
    CHECK(*exit == run_exit::ok);
    REQUIRE_FALSE(live.notes.empty());
    CHECK_THAT(live.notes.front(), Catch::Contains("session-test"));  // the banner, first
    REQUIRE(live.lines.size() == 1);                                  // the summary line
    CHECK_THAT(live.lines.front(), Catch::Contains("ok=20"));
    CHECK(std::filesystem::file_size(live.dir.path / "run.csv") > 0);
}

TEST_CASE("a session's exit status says a broken SLO before anything else", "[session]")
{
    live_server live;
    auto o = live.options();
    auto gates = parse_slo("p50<1ms");  // every answer waits 5 ms
    REQUIRE(gates);
    o.gates = *gates;
    auto opened = session::open(burst_of("/io?delayInMillis=5", 10), o);
    REQUIRE(opened);
    auto exit = opened->execute();
    REQUIRE(exit);
    CHECK(*exit == run_exit::slo_broken);
}

TEST_CASE("a session refuses an --out file it could not append to before the first request", "[session]")
{
    live_server live;
    {
        std::ofstream(live.dir.path / "run.csv") << "some_other_tool_column,another\n1,2\n";
    }
    auto o = live.options();
    o.out = live.dir.path / "run.csv";
    auto opened = session::open(burst_of("/epoch-millis?delayInMillis=0", 1), o);
    REQUIRE(opened);
    auto exit = opened->execute();
    REQUIRE_FALSE(exit);
    CHECK_THAT(exit.err().message, Catch::Contains("some_other_tool_column"));
    const auto& counters = live.server.instance().app().counters();
    CHECK(counters.requests(execbench::endpoints::endpoint::epoch_millis, execbench::http::status::ok) == 0);
    CHECK(live.lines.empty());
}

TEST_CASE("a session without a server fails at its pre-flight, naming the flag that runs anyway", "[session]")
{
    std::uint16_t closed_port = 0;
    {
        option_server gone(live_server::one_loop_thread());
        closed_port = gone.port();
    }
    told said;
    auto opened = session::open(burst_of("/health", 1), said.against(closed_port));
    REQUIRE(opened);
    auto exit = opened->execute();
    REQUIRE_FALSE(exit);
    CHECK_THAT(exit.err().message, Catch::Contains("pre-flight") && Catch::Contains("--allow-errors"));
}
