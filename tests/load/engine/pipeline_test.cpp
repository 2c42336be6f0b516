// --pipeline: a connection carries several requests at once, and each still has its own latency.
#include "execbench/load/run/runner.hpp"

#include "execbench/endpoints/app.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

scenario pipelined(shape kind, const std::string& path, std::uint32_t connections, std::uint32_t depth)
{
    scenario s;
    s.name = "pipeline";
    s.description = "pipeline";
    request_spec r;
    r.path = path;
    s.mix.push_back(r);
    s.load.kind = kind;
    s.load.connections = connections;
    s.load.pipeline = depth;
    s.trials = 1;
    s.pause = 0s;
    s.timeout = 5s;
    s.connect_timeout = 2s;
    return s;
}

const group_measurement& run_on(execbench::test_support::test_server& server, const scenario& s, run_result& out)
{
    run_options o;
    o.url = "http://127.0.0.1:" + std::to_string(server.port());
    auto r = run(s, o);
    INFO((r.ok() ? std::string() : r.err().message));
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->trials.empty());
    out = std::move(r.value());
    return out.trials.front().measured.foreground;
}

std::uint32_t most_in_flight(const group_measurement& m)
{
    std::uint32_t most = 0;
    for (const auto& sec : m.timeline)
        if (sec.sampled)
            most = std::max(most, sec.in_flight);
    return most;
}

}  // namespace

TEST_CASE("a pipelined closed loop keeps depth requests in flight on each connection, each answer recorded", "[load]")
{
    execbench::test_support::test_server server(execbench::models::model::loop);
    // The server answers a connection's requests in turn, 100 ms each: a pipeline of 4 is answered over 400 ms,
    // and all 4 stay in flight until the last answer; only then does the connection write the next 4.
    auto s = pipelined(shape::closed, "/io?delayInMillis=100", 3, 4);
    s.load.length = 1500ms;
    run_result r;
    const auto& m = run_on(server, s, r);
    CHECK(m.count.error_total() == 0);
    CHECK(most_in_flight(m) >= 9);
    CHECK(most_in_flight(m) <= 12);
    // Every answer is one latency, and the server answered exactly those (run() sends no pre-flight request).
    CHECK(m.latency.count() == m.count.ok);
    CHECK(m.count.ok == server.counters().requests(execbench::endpoints::endpoint::io, execbench::http::status::ok));
    CHECK(m.count.ok >= 3 * 4 * 3);  // three pipelines or more on each connection in 1.5 s
    CHECK(m.count.ok % 4 == 0);      // whole pipelines only: the end of the trial lets the last one finish
    // The fourth of each pipeline waited for the three before it.
    CHECK(m.latency.max() >= 350'000);
    CHECK(m.latency.min() < 150'000);
}

TEST_CASE("a pipelined open loop sends a due request on a connection that still waits for answers", "[load]")
{
    execbench::test_support::test_server server(execbench::models::model::loop);
    // One connection, a request due every 5 ms and answered in 20 ms: one at a time it would carry a quarter of
    // them; pipelined 8 deep, the requests queue on it and the backlog is the server's, in flight.
    auto s = pipelined(shape::open, "/io?delayInMillis=20", 1, 8);
    s.load.rate = 200;
    s.load.length = 1s;
    run_result r;
    const auto& m = run_on(server, s, r);
    CHECK(m.count.error_total() == 0);
    CHECK(m.count.ok + m.count.unsent == 200);
    CHECK(most_in_flight(m) >= 4);
    CHECK(most_in_flight(m) <= 8);
    CHECK(m.latency.count() == m.count.ok);
    CHECK(m.count.ok == server.counters().requests(execbench::endpoints::endpoint::io, execbench::http::status::ok));
}
