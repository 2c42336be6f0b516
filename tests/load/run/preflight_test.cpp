#include "execbench/load/run/preflight.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("server_mismatches names both sides where /health contradicts the scenario", "[load][cli]")
{
    target t;
    t.host_header = "127.0.0.1:8080";
    t.port = 8080;
    server_info server;
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
    server.health_json.clear();  // no /health: nothing to compare
    CHECK(server_mismatches(downstream, t, server).empty());
}
