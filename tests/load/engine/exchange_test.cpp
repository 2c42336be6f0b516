#include "execbench/load/engine/exchange.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using execbench::load::connect_failure;
using execbench::load::error_class;
using execbench::load::last_on_socket;
using execbench::load::read_state;
using execbench::load::response_reader;

namespace {

/// What a socket would do: copies up to `chunk` bytes of `bytes` into the reader's space per read, until the reader
/// stops asking or the bytes run out (need_more then).
read_state deliver(response_reader& r, std::string_view bytes, std::size_t chunk)
{
    auto state = read_state::need_more;
    std::size_t at = 0;
    while (state == read_state::need_more && at < bytes.size()) {
        auto space = r.space();
        REQUIRE(space.size() > 0);
        auto n = std::min({chunk, bytes.size() - at, space.size()});
        std::memcpy(space.data(), bytes.data() + at, n);
        at += n;
        state = r.received(n);
    }
    return state;
}

}  // namespace

TEST_CASE("the response reader assembles a response from reads of any size, without a socket", "[load]")
{
    const std::string response =
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-Pad: " + std::string(300, 'p') + "\r\n\r\nhello world";
    for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, response.size()}) {
        CAPTURE(chunk);
        response_reader r;
        r.begin();
        CHECK(deliver(r, response, chunk) == read_state::done);
        CHECK(r.response().status() == 200);
        CHECK(r.response().body_bytes() == 11);
        CHECK(r.response().keep_alive());
    }
}

TEST_CASE("the response reader reads the next response afresh and drops bytes left from the last", "[load]")
{
    response_reader r;
    r.begin();
    // The first response and the start of bytes nobody asked for arrive in one read.
    CHECK(deliver(r, "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 500 Oops\r\n", 4096) == read_state::done);
    CHECK(r.response().status() == 204);
    r.begin();
    CHECK(deliver(r, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno", 4096) == read_state::done);
    CHECK(r.response().status() == 404);
    CHECK(r.response().body_bytes() == 2);
}

TEST_CASE("the response reader keeps the bytes after a response for the next one when requests are pipelined",
          "[load]")
{
    const std::string three = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"
                              "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nbb"
                              "HTTP/1.1 204 No Content\r\n\r\n";
    for (std::size_t chunk : {std::size_t{1}, std::size_t{5}, three.size()}) {
        CAPTURE(chunk);
        response_reader r;
        r.begin();
        std::size_t at = 0;
        std::vector<int> statuses;
        auto state = read_state::need_more;
        while (statuses.size() < 3) {
            if (state == read_state::need_more) {
                REQUIRE(at < three.size());
                auto space = r.space();
                auto n = std::min({chunk, three.size() - at, space.size()});
                std::memcpy(space.data(), three.data() + at, n);
                at += n;
                state = r.received(n);
                continue;
            }
            REQUIRE(state == read_state::done);
            statuses.push_back(r.response().status());
            r.next();
            state = r.parse();
        }
        CHECK(statuses == std::vector<int>{200, 404, 204});
        CHECK(at == three.size());
    }
}

TEST_CASE("the response reader streams a body larger than its buffer and counts it", "[load]")
{
    const auto body = std::string(3 * response_reader::buffer_bytes + 5, 'b');
    response_reader r;
    r.begin();
    auto bytes = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    CHECK(deliver(r, bytes, 1000) == read_state::done);
    CHECK(r.response().body_bytes() == body.size());
}

TEST_CASE("the response reader calls a head larger than its buffer, or bytes that are not HTTP, a bad response",
          "[load]")
{
    SECTION("a head that does not fit")
    {
        response_reader r;
        r.begin();
        auto head = "HTTP/1.1 200 OK\r\nX-Huge: " + std::string(response_reader::buffer_bytes, 'h') + "\r\n\r\n";
        CHECK(deliver(r, head, 4096) == read_state::bad_response);
    }
    SECTION("not HTTP")
    {
        response_reader r;
        r.begin();
        CHECK(deliver(r, "SSH-2.0-OpenSSH_9.2\r\n\r\n", 4096) == read_state::bad_response);
    }
    SECTION("half a head is not yet anything")
    {
        response_reader r;
        r.begin();
        CHECK(deliver(r, "HTTP/1.1 200 OK\r\nContent-Le", 4096) == read_state::need_more);
    }
}

TEST_CASE("the end of the connection completes a body delimited by it and cuts off any other", "[load]")
{
    SECTION("a body without a length ends with the connection")
    {
        response_reader r;
        r.begin();
        CHECK(deliver(r, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it", 4096) == read_state::need_more);
        CHECK(r.closed() == read_state::done);
        CHECK(r.response().body_bytes() == 9);
        CHECK_FALSE(r.response().keep_alive());
    }
    SECTION("a body shorter than its length")
    {
        response_reader r;
        r.begin();
        CHECK(deliver(r, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 4096) == read_state::need_more);
        CHECK(r.closed() == read_state::cut_off);
    }
    SECTION("before the head ended")
    {
        response_reader r;
        r.begin();
        CHECK(deliver(r, "HTTP/1.1 200", 4096) == read_state::need_more);
        CHECK(r.closed() == read_state::cut_off);
    }
    SECTION("before any byte")
    {
        response_reader r;
        r.begin();
        CHECK(r.closed() == read_state::cut_off);
    }
}

TEST_CASE("a failed connect is classed by who ended it", "[load]")
{
    namespace error = boost::asio::error;
    CHECK(connect_failure(error::connection_refused, false) == error_class::connect_refused);
    CHECK(connect_failure(error::timed_out, false) == error_class::connect_timeout);
    // Our deadline closed the socket: the connect ends as aborted, and it is a timeout.
    CHECK(connect_failure(error::operation_aborted, true) == error_class::connect_timeout);
    CHECK(connect_failure(error::connection_refused, true) == error_class::connect_timeout);
    CHECK(connect_failure(error::no_buffer_space, false) == error_class::connect_other);
    CHECK(connect_failure(error::address_in_use, false) == error_class::connect_other);
}

TEST_CASE("a connection that carries N requests asks the server to close on the Nth", "[load]")
{
    CHECK_FALSE(last_on_socket(1, 0));  // no limit: keep-alive for good
    CHECK_FALSE(last_on_socket(1000000, 0));
    CHECK(last_on_socket(1, 1));  // churn 1: every request on a new connection
    CHECK_FALSE(last_on_socket(9, 10));
    CHECK(last_on_socket(10, 10));
}
