#include "execbench/load/engine/request.hpp"

#include "execbench/load/engine/target.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("request bytes are prepared once with host, length and headers", "[load]")
{
    auto t = resolve_target("http://127.0.0.1:8080/base", false);
    REQUIRE(t.ok());
    request_spec spec;
    spec.method = "POST";
    spec.path = "/movies";
    spec.body = "[]";
    spec.headers = {{"Content-Type", "application/json"}, {"Content-Length", "999"}};
    auto p = prepare_request(spec, *t);
    CHECK(p.bytes == "POST /base/movies HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
                     "User-Agent: execbench-load\r\nContent-Length: 2\r\n\r\n[]");
}

TEST_CASE("a connection's last request asks Connection: close, whatever the scenario's headers say", "[load]")
{
    auto t = resolve_target("http://127.0.0.1:8080", false);
    REQUIRE(t.ok());
    request_spec spec;
    spec.method = "GET";
    spec.path = "/epoch-millis";
    spec.headers = {{"Connection", "keep-alive"}};
    auto p = prepare_request(spec, *t);
    CHECK(p.bytes ==
          "GET /epoch-millis HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: execbench-load\r\nConnection: keep-alive\r\n\r\n");
    CHECK(p.closing_bytes ==
          "GET /epoch-millis HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: execbench-load\r\nConnection: close\r\n\r\n");
}
