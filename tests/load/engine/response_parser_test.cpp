#include "execbench/load/engine/response_parser.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <string>
#include <string_view>
#include <utility>

using execbench::load::response_parser;

TEST_CASE("the response parser counts bodies of every framing without storing them", "[load]")
{
    auto feed = [](response_parser& p, std::string_view text) {
        boost::system::error_code ec;
        auto used = p.put(boost::asio::buffer(text.data(), text.size()), ec);
        return std::make_pair(used, ec);
    };
    SECTION("content-length, split across reads")
    {
        response_parser p;
        std::string head = "HTTP/1.1 200 OK\r\nContent-Len";
        auto [used, ec] = feed(p, head);
        CHECK(ec == boost::beast::http::error::need_more);
        CHECK(used < head.size());  // the parser keeps what it has not consumed for the next call
        std::string rest = (head + "gth: 5\r\n\r\nhello").substr(used);
        auto [used2, ec2] = feed(p, rest);
        CHECK_FALSE(ec2);
        CHECK(used2 == rest.size());
        CHECK(p.is_done());
        CHECK(p.status() == 200);
        CHECK(p.body_bytes() == 5);
        CHECK(p.keep_alive());
    }
    SECTION("chunked")
    {
        response_parser p;
        auto [used, ec] =
            feed(p, "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
        CHECK_FALSE(ec);
        CHECK(p.is_done());
        CHECK(p.status() == 201);
        CHECK(p.body_bytes() == 7);
    }
    SECTION("connection close")
    {
        response_parser p;
        (void)feed(p, "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        CHECK(p.is_done());
        CHECK(p.status() == 503);
        CHECK_FALSE(p.keep_alive());
    }
    SECTION("garbage")
    {
        response_parser p;
        auto [used, ec] = feed(p, "this is not HTTP\r\n\r\n");
        CHECK(ec);
        CHECK(ec != boost::beast::http::error::need_more);
    }
}
