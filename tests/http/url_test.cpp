#include "execbench/http/url.hpp"

#include <catch2/catch.hpp>

using namespace execbench::http;

TEST_CASE("parse_url reads host, port and target", "[http]")
{
    auto full = parse_url("http://127.0.0.1:8080/epoch-millis?delayInMillis=1");
    REQUIRE(full);
    CHECK(full->host == "127.0.0.1");
    CHECK(full->port == 8080);
    CHECK(full->target == "/epoch-millis?delayInMillis=1");
    CHECK(full->authority() == "127.0.0.1:8080");

    auto bare = parse_url("http://localhost");
    REQUIRE(bare);
    CHECK(bare->host == "localhost");
    CHECK(bare->port == 80);
    CHECK(bare->target == "/");

    auto v6 = parse_url("http://[::1]:9000/x");
    REQUIRE(v6);
    CHECK(v6->host == "::1");
    CHECK(v6->port == 9000);
    CHECK(v6->authority() == "[::1]:9000");
}

TEST_CASE("parse_url reads https where the caller takes it, port 443 by default", "[http]")
{
    auto secure = parse_url("https://localhost/x", schemes::http_or_https);
    REQUIRE(secure);
    CHECK(secure->tls);
    CHECK(secure->port == 443);
    CHECK(secure->scheme() == "https");
    CHECK(secure->target == "/x");
    auto plain = parse_url("http://localhost:8080", schemes::http_or_https);
    REQUIRE(plain);
    CHECK_FALSE(plain->tls);
    auto other = parse_url("ftp://localhost", schemes::http_or_https);
    REQUIRE_FALSE(other);
    CHECK_THAT(other.err().message, Catch::Contains("only http:// or https://"));
}

TEST_CASE("parse_url rejects what it cannot use, saying why", "[http]")
{
    auto message = [](std::string_view text) {
        auto parsed = parse_url(text);
        REQUIRE_FALSE(parsed);
        return parsed.err().message;
    };
    CHECK_THAT(message("https://127.0.0.1"), Catch::Contains("only http://"));
    CHECK_THAT(message("127.0.0.1:8080"), Catch::Contains("expected http://"));
    CHECK_THAT(message("http://:8080/"), Catch::Contains("missing host"));
    CHECK_THAT(message("http://[::1/"), Catch::Contains("IPv6"));
    for (auto bad : {"http://h:0", "http://h:65536", "http://h:80x", "http://h:"}) {
        INFO(bad);
        CHECK_THAT(message(bad), Catch::Contains("1..65535"));
    }
}

TEST_CASE("is_loopback_literal recognises loopback names and addresses without resolving", "[http]")
{
    CHECK(is_loopback_literal("localhost"));
    CHECK(is_loopback_literal("127.0.0.1"));
    CHECK(is_loopback_literal("127.1.2.3"));
    CHECK(is_loopback_literal("::1"));
    CHECK_FALSE(is_loopback_literal("10.0.0.1"));
    CHECK_FALSE(is_loopback_literal("example.com"));
    CHECK_FALSE(is_loopback_literal("localhost.example.com"));
    CHECK_FALSE(is_loopback_literal(""));
}
