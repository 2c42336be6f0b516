#include "execbench/endpoints/request_cycle.hpp"

#include "execbench/endpoints/movie_store.hpp"
#include "execbench/http/request_parser.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>
#include <catch2/catch.hpp>

#include <string>

namespace {

using namespace execbench;

// Set field by field: a braced list would have to name every setting the struct gains.
endpoints::server_info info()
{
    endpoints::server_info i;
    i.model = "loop";
    i.threads = 1;
    i.cpu_threads = 1;
    i.queue = 100;
    i.fiber_stack_kb = 128;
    i.downstream = "http://127.0.0.1:1";
    i.address = "127.0.0.1";
    i.movies_read_only = true;
    return i;
}

struct fixture {
    endpoints::movie_store movies{{"", true}};
    endpoints::request_counters counters;
    endpoints::app app{info(), movies, counters};
    endpoints::request_cycle cycle{app};

    // Parses `bytes` (a whole request) into the cycle's storage.
    void read(const std::string& bytes)
    {
        http::request_parser parser(cycle.storage);
        boost::beast::flat_buffer buffer;
        auto n = boost::asio::buffer_copy(buffer.prepare(bytes.size()), boost::asio::buffer(bytes));
        buffer.commit(n);
        boost::system::error_code ec;
        REQUIRE(http::parse_buffered(parser, buffer, ec));
    }
};

}  // namespace

TEST_CASE("request_cycle counts a request from begin to finish and keeps the connection open", "[endpoints]")
{
    fixture f;
    f.read("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    CHECK(f.counters.in_flight() == 1);
    CHECK(f.cycle.stage1_done());
    f.cycle.respond();
    std::string head;
    f.cycle.append_head(head);
    CHECK(head.find("Connection: close") == std::string::npos);
    CHECK(f.cycle.finish(true));
    CHECK(f.counters.in_flight() == 0);
    CHECK(f.counters.requests(endpoints::endpoint::io, http::status::ok) == 1);
}

TEST_CASE("request_cycle closes after the answer when the client asks, the server stops or a write failed",
          "[endpoints]")
{
    fixture f;
    f.read("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    CHECK_FALSE(f.cycle.finish(true));
    f.read("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
    REQUIRE(f.cycle.begin(true));
    std::string head;
    f.cycle.append_head(head);
    CHECK(head.find("Connection: close") != std::string::npos);
    CHECK_FALSE(f.cycle.finish(true));
    f.read("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    CHECK_FALSE(f.cycle.finish(false));
}

TEST_CASE("request_cycle answers a failed stage 1 and a malformed request, and counts what it never finished",
          "[endpoints]")
{
    fixture f;
    f.read("GET /epoch-millis?delayCallDepth=1 HTTP/1.1\r\nHost: a\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    CHECK(f.cycle.downstream_target() == "/epoch-millis?delayCallDepth=0&delayInMillis=100");
    CHECK_FALSE(f.cycle.stage1_done(http::call_outcome::from_error(boost::asio::error::connection_refused)));
    CHECK(f.cycle.response.code == http::status::bad_gateway);
    CHECK(f.cycle.finish(true));

    CHECK_FALSE(f.cycle.reject(boost::asio::error::eof));  // nobody left to answer
    REQUIRE(f.cycle.reject(boost::beast::http::error::bad_target));
    CHECK(f.cycle.response.code == http::status::bad_request);
    CHECK_FALSE(f.cycle.finish(true));

    {
        endpoints::request_cycle abandoned(f.app);
        f.read("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
        abandoned.storage = f.cycle.storage;
        REQUIRE(abandoned.begin(false));
        CHECK(f.counters.in_flight() == 1);
    }
    CHECK(f.counters.in_flight() == 0);
}

TEST_CASE("request_cycle answers HEAD with the GET's length and no body, and an HTTP/1.0 stream closes",
          "[endpoints]")
{
    fixture f;
    f.read("HEAD /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    f.cycle.respond();
    std::string head;
    f.cycle.append_head(head);
    CHECK(head.find("\r\nContent-Length: 18\r\n") != std::string::npos);  // {"waitedMillis":0}
    CHECK(f.cycle.response.body.empty());
    CHECK(f.cycle.finish(true));

    f.read("GET /stream?count=2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    CHECK(f.cycle.framing().http10);
    CHECK_FALSE(f.cycle.framing().keep_alive);
    CHECK_FALSE(f.cycle.finish(true));

    f.read("GET /io?delayInMillis=0 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    REQUIRE(f.cycle.begin(false));
    f.cycle.respond();
    head.clear();
    f.cycle.append_head(head);
    CHECK(head.find("\r\nConnection: keep-alive\r\n") != std::string::npos);
    CHECK(f.cycle.finish(true));
}
