#include "execbench/endpoints/app.hpp"

#include "support/movie_json.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

// endpoints::app without a server: the routing, validation and response bodies every model shares. What only the
// wire shows (framing, keep-alive, timeouts) stays in tests/models.

namespace {

using namespace execbench;
using endpoints::endpoint;
using endpoints::work;
using test_support::small_movie;

endpoints::server_info loop_info()
{
    endpoints::server_info info;
    info.model = "loop";
    info.threads = 2;
    info.downstream = "http://127.0.0.1:1";
    return info;
}

/// An app over an in-memory movie store, as bench-server builds it.
struct app_fixture {
    endpoints::movie_store movies{endpoints::movie_store_options{}};
    endpoints::request_counters counters;
    endpoints::app app{loop_info(), movies, counters};
    endpoints::plan plan;
    http::response out;

    /// Plans `target` (path and query) sent with `method`; the body and content type are for POST.
    bool plan_request(std::string_view target, http::verb method = http::verb::get, std::string_view body = {},
                      std::string_view content_type = {})
    {
        http::request req;
        req.method = method;
        req.method_name = method == http::verb::post ? "POST" : method == http::verb::get ? "GET" : "DELETE";
        req.target = target;
        auto q = target.find('?');
        req.path = target.substr(0, q);
        req.query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
        req.body = body;
        req.content_type = content_type;
        out.clear();
        return app.plan(req, plan, out);
    }

    /// The "error" member of the JSON error body `out` holds.
    [[nodiscard]] std::string error_message() const
    {
        return nlohmann::json::parse(out.body).at("error").get<std::string>();
    }
};

}  // namespace

TEST_CASE("plan routes each path to its endpoint, work and default delay", "[endpoints][app]")
{
    app_fixture f;
    struct route_case {
        std::string_view target;
        endpoint route;
        work what;
        int delay;
    };
    auto c = GENERATE(values<route_case>({
        {"/io", endpoint::io, work::respond, 300},
        {"/cpu", endpoint::cpu, work::compute, 0},
        {"/cpu-offloaded", endpoint::cpu_offloaded, work::compute_offloaded, 0},
        {"/stream", endpoint::stream, work::stream, 0},
        {"/epoch-millis", endpoint::epoch_millis, work::respond, 100},
        {"/movies?directorLastName=Kubrick", endpoint::movies, work::respond, 100},
        {"/health", endpoint::health, work::respond, 0},
        {"/metrics", endpoint::metrics, work::respond, 0},
    }));
    INFO(c.target);
    REQUIRE(f.plan_request(c.target));
    CHECK(f.plan.route == c.route);
    CHECK(f.plan.what == c.what);
    CHECK(f.plan.delay_millis == c.delay);
    CHECK_FALSE(f.plan.calls_downstream());
}

TEST_CASE("plan reads the parameters of each endpoint and forgets the previous request's", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/cpu?iterations=7&delayCallDepth=2&delayInMillis=5"));
    CHECK(f.plan.iterations == 7);
    CHECK(f.plan.call_depth == 2);
    CHECK(f.plan.delay_millis == 5);
    CHECK(f.plan.calls_downstream());

    REQUIRE(f.plan_request("/cpu"));
    CHECK(f.plan.iterations == 20'000);
    CHECK(f.plan.call_depth == 0);

    REQUIRE(f.plan_request("/stream?count=3&intervalMillis=10&eventBytes=64"));
    CHECK(f.plan.stream.count == 3);
    CHECK(f.plan.stream.interval_millis == 10);
    CHECK(f.plan.stream.event_bytes == 64);

    REQUIRE(f.plan_request("/movies?directorLastName=Kubrick"));
    CHECK(f.plan.director == "Kubrick");
    CHECK_FALSE(f.plan.post);
    REQUIRE(f.plan_request("/stream"));
    CHECK(f.plan.director.empty());
    CHECK(f.plan.stream.count == 50);
}

TEST_CASE("an unknown path is 404 naming the paths that exist", "[endpoints][app]")
{
    app_fixture f;
    CHECK_FALSE(f.plan_request("/nope?delayInMillis=1"));
    CHECK(f.out.code == http::status::not_found);
    CHECK(f.plan.route == endpoint::other);
    CHECK_THAT(f.error_message(), Catch::Contains("/io") && Catch::Contains("/metrics"));
}

TEST_CASE("a wrong method is 405 with the Allow the path takes", "[endpoints][app]")
{
    app_fixture f;
    CHECK_FALSE(f.plan_request("/io", http::verb::post));
    CHECK(f.out.code == http::status::method_not_allowed);
    CHECK(f.out.allow == "GET, HEAD");
    CHECK_THAT(f.error_message(), Catch::Contains("POST") && Catch::Contains("/io"));

    CHECK_FALSE(f.plan_request("/movies", http::verb::del));
    CHECK(f.out.code == http::status::method_not_allowed);
    CHECK(f.out.allow == "GET, HEAD, POST");
}

TEST_CASE("HEAD is planned as GET, and HEAD /stream answers the stream's head without producing events",
          "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/io?delayInMillis=7", http::verb::head));
    CHECK(f.plan.what == work::respond);
    CHECK(f.plan.delay_millis == 7);
    REQUIRE(f.plan_request("/cpu?iterations=3", http::verb::head));
    CHECK(f.plan.what == work::compute);
    CHECK(f.plan.iterations == 3);
    REQUIRE(f.plan_request("/movies?directorLastName=Kubrick", http::verb::head));
    CHECK_FALSE(f.plan.post);

    REQUIRE(f.plan_request("/stream?count=3", http::verb::head));
    CHECK(f.plan.what == work::respond);
    f.app.respond(f.plan, f.out);
    CHECK(f.out.streamed);
    CHECK(f.out.content_type == "text/event-stream");
    // Bad parameters are refused as GET refuses them.
    CHECK_FALSE(f.plan_request("/stream?count=0", http::verb::head));
    CHECK(f.out.code == http::status::bad_request);
}

TEST_CASE("every knob a request controls has a ceiling answered with 400", "[endpoints][app]")
{
    app_fixture f;
    auto target = GENERATE(as<std::string>{}, "/io?delayInMillis=60001", "/io?delayInMillis=-1",
                           "/io?delayCallDepth=11", "/cpu?iterations=1000001", "/cpu-offloaded?iterations=0",
                           "/stream?count=1000001", "/stream?eventBytes=65537", "/stream?intervalMillis=60001",
                           "/movies?directorLastName=" + std::string(257, 'a'), "/io?delayInMillis=ten",
                           "/io?delayInMillis=1&delayInMillis=2", "/io?a=%zz", "/movies");
    INFO(target);
    CHECK_FALSE(f.plan_request(target));
    CHECK(f.out.code == http::status::bad_request);
    CHECK_FALSE(f.error_message().empty());
}

TEST_CASE("a 400 names the parameter and its range", "[endpoints][app]")
{
    app_fixture f;
    CHECK_FALSE(f.plan_request("/io?delayInMillis=60001"));
    CHECK(f.error_message() == "delayInMillis must be an integer in 0..60000");
}

TEST_CASE("POST /movies needs JSON and a valid batch", "[endpoints][app]")
{
    app_fixture f;
    CHECK_FALSE(f.plan_request("/movies", http::verb::post, "[" + small_movie("X") + "]", "text/plain"));
    CHECK(f.out.code == http::status::unsupported_media_type);

    CHECK_FALSE(f.plan_request("/movies", http::verb::post, "[{\"title\":\"no year\"}]", "application/json"));
    CHECK(f.out.code == http::status::bad_request);

    // The media type is matched without case and parameters.
    CHECK(f.plan_request("/movies", http::verb::post, "[" + small_movie("X") + "]", "Application/JSON; charset=utf-8"));
    CHECK(f.plan.post);
}

TEST_CASE("respond builds the body of each plain endpoint", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/io?delayInMillis=42"));
    f.app.respond(f.plan, f.out);
    CHECK(f.out.code == http::status::ok);
    CHECK(f.out.body == "{\"waitedMillis\":42}");

    REQUIRE(f.plan_request("/epoch-millis"));
    f.app.respond(f.plan, f.out);
    CHECK(std::stoll(f.out.body) > 1'600'000'000'000);

    REQUIRE(f.plan_request("/health"));
    f.app.respond(f.plan, f.out);
    auto health = nlohmann::json::parse(f.out.body);
    CHECK(health.at("status") == "up");
    CHECK(health.at("model") == "loop");
    CHECK(health.at("threads") == 2);

    f.counters.request_finished(endpoint::io, http::status::ok);
    REQUIRE(f.plan_request("/metrics"));
    f.app.respond(f.plan, f.out);
    CHECK_THAT(std::string(f.out.content_type), Catch::StartsWith("text/plain"));
    CHECK_THAT(f.out.body, Catch::Contains("execbench_requests_total{endpoint=\"io\",status=\"200\"} 1\n"));
}

TEST_CASE("respond stores a POSTed batch that a GET then finds", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/movies?directorLastName=Unit"));
    f.app.respond(f.plan, f.out);
    CHECK(f.out.body == "[]");

    REQUIRE(f.plan_request("/movies", http::verb::post, "[" + small_movie("Unit") + "]", "application/json"));
    f.app.respond(f.plan, f.out);
    CHECK(f.out.code == http::status::created);
    auto stored = nlohmann::json::parse(f.out.body);
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].contains("id"));

    REQUIRE(f.plan_request("/movies?directorLastName=Unit"));
    f.app.respond(f.plan, f.out);
    auto found = nlohmann::json::parse(f.out.body);
    REQUIRE(found.size() == 1);
    CHECK(found[0].at("title") == "T");
}

TEST_CASE("a compute plan is answered with its iterations and digest", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/cpu?iterations=3"));
    auto c = f.app.compute(f.plan);
    CHECK(c.iterations == 3);
    CHECK(c.sha256 == endpoints::sha256_chain(3));
    f.app.respond(f.plan, c, f.out);
    std::string hex;
    endpoints::append_hex(c.sha256, hex);
    CHECK(f.out.body == "{\"iterations\":3,\"sha256\":\"" + hex + "\"}");
}

TEST_CASE("cpuMicros asks for a CPU time, waits first like every endpoint, and says how far the chain got",
          "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/cpu?cpuMicros=500&delayInMillis=10"));
    CHECK(f.plan.what == endpoints::work::compute);
    CHECK(f.plan.cpu_micros == 500);
    CHECK(f.plan.delay_millis == 10);
    auto c = f.app.compute(f.plan);
    REQUIRE(c.iterations > 0);
    CHECK(c.sha256 == endpoints::sha256_chain(c.iterations));
    f.app.respond(f.plan, c, f.out);
    auto body = nlohmann::json::parse(f.out.body);
    CHECK(body.at("cpuMicros") == 500);
    CHECK(body.at("iterations") == c.iterations);

    REQUIRE(f.plan_request("/cpu-offloaded?cpuMicros=50"));
    CHECK(f.plan.cpu_micros == 50);
    REQUIRE(f.plan_request("/cpu?iterations=5"));
    CHECK(f.plan.cpu_micros == 0);  // forgotten: the next request is a fixed chain again

    for (const char* bad : {"/cpu?cpuMicros=0", "/cpu?cpuMicros=1000001", "/cpu?cpuMicros=x",
                            "/cpu?cpuMicros=5&cpuMicros=6"}) {
        INFO(bad);
        CHECK_FALSE(f.plan_request(bad));
        CHECK(f.out.code == http::status::bad_request);
        CHECK(f.out.body.find("cpuMicros") != std::string::npos);
    }
    CHECK_FALSE(f.plan_request("/cpu?cpuMicros=5&iterations=5"));
    CHECK(f.out.code == http::status::bad_request);
    CHECK(f.out.body.find("not both") != std::string::npos);
}

TEST_CASE("the downstream call goes one level deeper with the same delay", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/movies?directorLastName=K&delayCallDepth=3&delayInMillis=250"));
    std::string target;
    f.app.downstream_target(f.plan, target);
    CHECK(target == "/epoch-millis?delayCallDepth=2&delayInMillis=250");

    f.app.respond_downstream_failure(http::failure::downstream_timeout, "no answer", f.out);
    CHECK(f.out.code == http::status::gateway_timeout);
    CHECK(f.error_message() == "downstream call to http://127.0.0.1:1 failed: no answer");
}

TEST_CASE("stream events are framed as chunks, the last followed by the last chunk, and counted", "[endpoints][app]")
{
    app_fixture f;
    REQUIRE(f.plan_request("/stream?count=2&eventBytes=20"));
    std::string out;
    f.app.stream_event(f.plan, 0, {}, out);
    // The first event brings the response head; the event follows it as a chunk.
    CHECK_THAT(out, Catch::StartsWith("HTTP/1.1 200") && Catch::Contains("Transfer-Encoding: chunked\r\n\r\n") &&
                        Catch::EndsWith("\r\n\r\n14\r\ndata: event-0.....\n\n\r\n"));  // 0x14 = 20 bytes
    CHECK(f.counters.events_produced() == 1);
    out.clear();
    f.app.stream_event(f.plan, 1, {}, out);
    CHECK(out == "14\r\ndata: event-1.....\n\n\r\n0\r\n\r\n");
    CHECK(f.counters.events_produced() == 2);

    // Without padding the chunk is the natural event size, whatever the number of digits.
    REQUIRE(f.plan_request("/stream?count=2000"));
    out.clear();
    f.app.stream_event(f.plan, 1234, {}, out);
    CHECK(out == "12\r\ndata: event-1234\n\n\r\n");  // 0x12 = 18 bytes
}
