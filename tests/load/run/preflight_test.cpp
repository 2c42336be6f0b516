#include "execbench/load/run/preflight.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("server_mismatches names both sides where /health contradicts the scenario", "[load][cli]")
{
    target t;
    t.host_header = "127.0.0.1:8080";
    t.port = 8080;
    observed_server server;
    server.model = "pool";
    server.health_json = R"({"model":"pool","threads":200,"moviesReadOnly":false,)"
                         R"("downstream":"http://127.0.0.1:8080"})";

    scenario movies;
    movies.name = "20k-vus-smooth-spike-get-post-movies";
    movies.mix.push_back({});
    movies.server.options = {{"movies-read-only", "true"}, {"threads", "200"}};
    auto w = server_mismatches(movies, t, server);
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Catch::Contains("server.options.movies-read-only = true") &&
                         Catch::Contains("moviesReadOnly = false") && Catch::Contains("--movies-read-only"));

    scenario downstream;
    downstream.name = "downstream-1000";
    request_spec call;
    call.path = "/epoch-millis?delayCallDepth=1&delayInMillis=100";
    downstream.mix.push_back(call);
    downstream.server.downstream = "separate";
    w = server_mismatches(downstream, t, server);
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Catch::Contains("wants a separate downstream") && Catch::Contains("calls itself"));

    server.health_json = R"({"model":"pool","downstream":"http://127.0.0.1:9090","moviesReadOnly":true})";
    CHECK(server_mismatches(downstream, t, server).empty());
    CHECK(server_mismatches(movies, t, server).empty());
    // The database set's `"movies-cache": "off"`: the server reports the cache's size, 0; no mismatch. A cache of 100
    // against that 0 is one.
    scenario uncached;
    uncached.name = "10-vus-and-rps-get-movies-postgres-no-cache";
    uncached.server.options = {{"movies-cache", "off"}, {"threads", "200.0"}};
    server.health_json = R"({"model":"pool","threads":200,"moviesCache":0})";
    CHECK(server_mismatches(uncached, t, server).empty());
    uncached.server.options = {{"movies-cache", "100"}};
    w = server_mismatches(uncached, t, server);
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Catch::Contains("movies-cache = 100") && Catch::Contains("moviesCache = 0"));
    server.health_json.clear();  // no /health: nothing to compare
    CHECK(server_mismatches(downstream, t, server).empty());
}

TEST_CASE("idle_timeout_warning: a connection idle past the server's keep-alive timeout is named before the run",
          "[load][cli]")
{
    observed_server server;
    server.model = "fiber";
    server.health_json = R"({"model":"fiber","idleTimeoutMs":5000})";

    scenario open;
    open.name = "open-idle";
    open.load.kind = shape::open;
    open.load.connections = 3000;
    open.load.rate = 1000;  // each connection every 3 s: fits
    CHECK(idle_timeout_warning(open, server).empty());
    open.load.rate = 500;  // every 6 s: past 5 s
    auto w = idle_timeout_warning(open, server);
    CHECK_THAT(w, Catch::StartsWith("scenario open-idle: ") && Catch::Contains("3,000 connections") &&
                      Catch::Contains("every 6.0 s") && Catch::Contains("5.0 s, /health idleTimeoutMs") &&
                      Catch::Contains("--idle-timeout"));

    scenario closed;
    closed.name = "closed-think";
    closed.load.kind = shape::closed;
    closed.load.connections = 10;
    closed.load.think_max = std::chrono::seconds{3};
    CHECK(idle_timeout_warning(closed, server).empty());
    closed.load.think_max = std::chrono::seconds{5};
    CHECK_THAT(idle_timeout_warning(closed, server), Catch::Contains("pause up to 5.0 s"));

    server.health_json = R"({"model":"fiber"})";  // a server that does not say: nothing to compare
    CHECK(idle_timeout_warning(open, server).empty());
    server.health_json = "not json";
    CHECK(idle_timeout_warning(open, server).empty());
}
