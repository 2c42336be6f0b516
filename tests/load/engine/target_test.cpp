#include "execbench/load/engine/target.hpp"

#include "execbench/endpoints/app.hpp"
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
    // https gets its TLS context (port 443 by default); other schemes are refused, naming the two it takes.
    auto secure = resolve_target("https://127.0.0.1", false);
    REQUIRE(secure.ok());
    CHECK(secure->tls != nullptr);
    CHECK(secure->port == 443);
    CHECK(secure->scheme() == "https");
    CHECK(local->tls == nullptr);
    auto other = resolve_target("ftp://127.0.0.1", false);
    REQUIRE_FALSE(other.ok());
    CHECK_THAT(other.err().message, Catch::Contains("http:// or https://"));

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

TEST_CASE("a request of /epoch-millis that names no delay is said to wait bench-server's default", "[load]")
{
    CHECK(default_delay_note("/epoch-millis") == " (bench-server waits 100 ms here unless ?delayInMillis= says "
                                                 "otherwise)");
    CHECK(default_delay_note("/epoch-millis?delayCallDepth=1") == default_delay_note("/epoch-millis"));
    CHECK(default_delay_note("/epoch-millis?delayInMillis=0").empty());
    CHECK(default_delay_note("/epoch-millis?x=1&delayInMillis=5").empty());
    CHECK(default_delay_note("/io").empty());
    CHECK(default_delay_note("/epoch-millis-other").empty());
    // The load layer spells bench-server's default once; it must be the route table's.
    for (const auto& r : execbench::endpoints::route_summaries())
        if (r.path == "/epoch-millis")
            CHECK(r.default_delay_millis == epoch_millis_default_delay_ms);
}
