#include "execbench/load/engine/prepared_request.hpp"

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

TEST_CASE("a request's HTTP/2 form: pseudo-headers, lower-case names, no connection-specific headers", "[load]")
{
    auto t = resolve_target("http://127.0.0.1:8080/base", false);
    REQUIRE(t.ok());
    request_spec spec;
    spec.method = "POST";
    spec.path = "/movies?x=1";
    spec.body = "[]";
    spec.headers = {{"Content-Type", "application/json"},
                    {"Connection", "keep-alive"},
                    {"Keep-Alive", "timeout=5"},
                    {"Host", "elsewhere"},
                    {"Transfer-Encoding", "chunked"},
                    {"X-Trace", "A"}};
    auto p = prepare_request(spec, *t);
    CHECK(p.h2.method == "POST");
    CHECK(p.h2.scheme == "http");
    CHECK(p.h2.authority == "127.0.0.1:8080");
    CHECK(p.h2.path == "/base/movies?x=1");
    CHECK(p.h2.body == "[]");
    using headers = std::vector<std::pair<std::string, std::string>>;
    CHECK(p.h2.headers == headers{{"content-type", "application/json"},
                                  {"x-trace", "A"},
                                  {"user-agent", "execbench-load"},
                                  {"content-length", "2"}});
    auto secure = resolve_target("https://127.0.0.1:8443", false);
    REQUIRE(secure.ok());
    CHECK(prepare_request(request_spec{}, *secure).h2.scheme == "https");
}
