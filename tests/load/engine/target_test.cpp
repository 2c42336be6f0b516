#include "execbench/load/engine/target.hpp"

#include "execbench/load/run/runner.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("targets must be loopback unless remote targets are allowed", "[load]")
{
    auto refused = resolve_target("http://192.0.2.7:80", false);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.err().message, Catch::Contains("not loopback") && Catch::Contains("--allow-remote"));
    auto allowed = resolve_target("http://192.0.2.7:80", true);
    REQUIRE(allowed.ok());
    CHECK_FALSE(allowed->local);
    auto local = resolve_target("http://localhost:1", false);
    REQUIRE(local.ok());
    CHECK(local->local);
    CHECK_FALSE(resolve_target("https://127.0.0.1", false).ok());

    // A run refuses it before anything is sent.
    scenario s;
    s.mix.push_back(request_spec{});
    s.load.kind = shape::burst;
    s.load.requests = s.load.connections = 1;
    run_options o;
    o.url = "http://192.0.2.7:80";
    auto r = run(s, o);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.err().message, Catch::Contains("--allow-remote"));
}
