#include "execbench/http/request_parser.hpp"

#include "execbench/http/limits.hpp"

#include "support/parse_in_pieces.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

namespace {

using namespace execbench::http;
namespace be = boost::beast::http;

// Feeds `text` in pieces of `step` bytes (as a socket might deliver it) until the request is complete or fails.
boost::beast::error_code parse(std::string_view text, request_storage& storage, std::size_t step = 1 << 20)
{
    return execbench::test_support::parse_in_pieces(text, storage, step);
}

request parsed(std::string_view text, request_storage& storage)
{
    auto ec = parse(text, storage);
    INFO(ec.message());
    REQUIRE_FALSE(ec);
    return storage.view();
}

bool keep_alive_of(std::string_view head)
{
    request_storage storage;
    return parsed(head, storage).keep_alive;
}

}  // namespace

TEST_CASE("request_parser fills the request an endpoint sees", "[http]")
{
    request_storage storage;
    auto req = parsed("GET /movies?directorLastName=Allen HTTP/1.1\r\nHost: a\r\n\r\n", storage);
    CHECK(req.method == verb::get);
    CHECK(req.method_name == "GET");
    CHECK(req.target == "/movies?directorLastName=Allen");
    CHECK(req.path == "/movies");
    CHECK(req.query == "directorLastName=Allen");
    CHECK(req.body.empty());
    CHECK(req.content_type.empty());

    SECTION("every verb the endpoints tell apart, the rest as other with its name")
    {
        CHECK(parsed("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", storage).method == verb::post);
        CHECK(parsed("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", storage).method == verb::head);
        CHECK(parsed("PUT / HTTP/1.1\r\nHost: a\r\n\r\n", storage).method == verb::put);
        CHECK(parsed("DELETE / HTTP/1.1\r\nHost: a\r\n\r\n", storage).method == verb::del);
        auto patch = parsed("PATCH / HTTP/1.1\r\nHost: a\r\n\r\n", storage);
        CHECK(patch.method == verb::other);
        CHECK(patch.method_name == "PATCH");
    }

    SECTION("reusing the storage forgets the previous request")
    {
        parsed("POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
               "Connection: close\r\n\r\n[]",
               storage);
        auto next = parsed("GET /io HTTP/1.1\r\nHost: a\r\n\r\n", storage);
        CHECK(next.content_type.empty());
        CHECK(next.body.empty());
        CHECK(next.keep_alive);
        CHECK(next.target == "/io");
    }
}

TEST_CASE("request_parser applies the keep-alive rules of HTTP/1.0 and 1.1", "[http]")
{
    CHECK(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: CLOSE\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade , close\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nConnection: close\r\n\r\n"));
    CHECK(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n\r\n"));
    CHECK(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n"));  // a token, not a prefix

    CHECK_FALSE(keep_alive_of("GET / HTTP/1.0\r\n\r\n"));
    CHECK(keep_alive_of("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    CHECK(keep_alive_of("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n"));
}

TEST_CASE("request_parser captures the content type and the body, whole or chunked", "[http]")
{
    request_storage storage;

    SECTION("Content-Length body")
    {
        auto req = parsed("POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json; charset=utf-8\r\n"
                          "Content-Length: 9\r\n\r\n[{\"a\":1}]",
                          storage);
        CHECK(req.content_type == "application/json; charset=utf-8");
        CHECK(req.body == "[{\"a\":1}]");
    }

    SECTION("chunked body, delivered a byte at a time")
    {
        auto ec = parse("POST /movies HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n",
                        storage, 1);
        REQUIRE_FALSE(ec);
        CHECK(storage.view().body == "Wikipedia");
    }

    SECTION("a body split across reads")
    {
        auto ec = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", storage, 7);
        REQUIRE_FALSE(ec);
        CHECK(storage.view().body == "0123456789");
    }
}

TEST_CASE("request_parser enforces execbench's limits and HTTP's framing rules", "[http]")
{
    request_storage storage;

    SECTION("a head over 8 KiB is header_limit")
    {
        std::string head =
            "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: " + std::string(limits::max_header_bytes, 'a') + "\r\n\r\n";
        CHECK(parse(head, storage) == be::error::header_limit);
    }

    SECTION("a Content-Length over 1 MiB is body_limit before any body arrives")
    {
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n", storage) == be::error::body_limit);
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n", storage) == be::error::need_more);
    }

    SECTION("chunks adding up to more than 1 MiB are body_limit")
    {
        std::string chunk(600'000, 'x');
        std::string request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (int i = 0; i < 2; ++i)
            request += "927c0\r\n" + chunk + "\r\n";  // 0x927c0 = 600000
        request += "0\r\n\r\n";
        CHECK(parse(request, storage) == be::error::body_limit);
    }

    SECTION("only HTTP/1.0 and 1.1 are parsed")
    {
        CHECK(parse("GET / HTTP/2.0\r\n\r\n", storage) == be::error::bad_version);
        CHECK(parse("GET / HTTP/0.9\r\n\r\n", storage) == be::error::bad_version);
    }

    SECTION("conflicting lengths and smuggling attempts fail")
    {
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", storage) ==
              be::error::multiple_content_length);
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\na", storage) ==
              be::error::bad_content_length);
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                    storage) == be::error::bad_transfer_encoding);
        CHECK(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", storage) ==
              be::error::bad_chunk);
    }

    SECTION("a header line without a colon fails")
    {
        CHECK(parse("GET / HTTP/1.1\r\nHost a\r\n\r\n", storage) == be::error::bad_field);
    }
}

TEST_CASE("request_parser records HTTP/1.0 and a 1.1 client's Expect: 100-continue", "[http]")
{
    request_storage storage;
    CHECK(parsed("GET / HTTP/1.0\r\n\r\n", storage).http10);
    CHECK_FALSE(parsed("GET / HTTP/1.1\r\nHost: a\r\n\r\n", storage).http10);
    auto post = "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n{}";
    REQUIRE_FALSE(parse(post, storage));
    CHECK(storage.expects_continue);
    // RFC 9110 section 10.1.1: never to an HTTP/1.0 client, and only for the one expectation there is.
    REQUIRE_FALSE(parse("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}", storage));
    CHECK_FALSE(storage.expects_continue);
    REQUIRE_FALSE(parse("POST / HTTP/1.1\r\nHost: a\r\nExpect: x\r\nContent-Length: 2\r\n\r\n{}", storage));
    CHECK_FALSE(storage.expects_continue);
    storage.clear();
    CHECK_FALSE(storage.expects_continue);
    CHECK_FALSE(storage.http10);
}
