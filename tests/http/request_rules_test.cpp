// Request rules the server adds to Beast's parser: an exact cumulative head limit, whatever the pieces the head
// arrives in; exactly one Host on HTTP/1.1; an ASCII request target.
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

// Feeds `text` in pieces of `step` bytes to a fresh parser, as a socket read loop does.
boost::beast::error_code parse_in_pieces(std::string_view text, std::size_t step)
{
    request_storage storage;
    return execbench::test_support::parse_in_pieces(text, storage, step);
}

// A complete head of exactly `bytes` bytes: many 50-byte fields and one to pad.
std::string head_of_size(std::size_t bytes)
{
    std::string head = "GET /io HTTP/1.1\r\nHost: a\r\n";
    const std::string field = "X-Field: " + std::string(39, 'v') + "\r\n";
    while (head.size() + field.size() + 2 + 20 <= bytes)
        head += field;
    head += "X-Pad: " + std::string(bytes - head.size() - 2 - 9, 'v') + "\r\n";
    return head + "\r\n";
}

}  // namespace

TEST_CASE("the head limit counts the whole head, however it arrives", "[http]")
{
    for (std::size_t step : {std::size_t{1} << 20, std::size_t{4096}, std::size_t{1000}, std::size_t{100}}) {
        INFO("pieces of " << step << " bytes");
        CHECK_FALSE(parse_in_pieces(head_of_size(limits::max_header_bytes - 100), step));
        CHECK(parse_in_pieces(head_of_size(limits::max_header_bytes + 200), step) == be::error::header_limit);
        CHECK(parse_in_pieces(head_of_size(3 * limits::max_header_bytes), step) == be::error::header_limit);
    }
}

TEST_CASE("an HTTP/1.1 request needs exactly one Host, an HTTP/1.0 one may omit it", "[http]")
{
    const auto bad_host = make_error_code(request_error::bad_host);
    CHECK(parse_in_pieces("GET / HTTP/1.1\r\n\r\n", 64) == bad_host);
    CHECK(parse_in_pieces("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 64) == bad_host);
    CHECK(parse_in_pieces("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", 64) == bad_host);
    CHECK_FALSE(parse_in_pieces("GET / HTTP/1.0\r\n\r\n", 64));
    CHECK_FALSE(parse_in_pieces("GET / HTTP/1.1\r\nhost: a\r\n\r\n", 64));
}

TEST_CASE("a request target with a byte outside ASCII is a bad target", "[http]")
{
    CHECK(parse_in_pieces("GET /io?x=\xff HTTP/1.1\r\nHost: a\r\n\r\n", 64) == be::error::bad_target);
    CHECK(parse_in_pieces("GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 64) == be::error::bad_target);
    CHECK_FALSE(parse_in_pieces("GET /caf%C3%A9 HTTP/1.1\r\nHost: a\r\n\r\n", 64));
}

TEST_CASE("a Transfer-Encoding that does not end in chunked, or on HTTP/1.0, is refused", "[http]")
{
    CHECK(parse_in_pieces("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 64) ==
          be::error::bad_transfer_encoding);
    CHECK(parse_in_pieces("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", 64) ==
          be::error::bad_transfer_encoding);
    CHECK(parse_in_pieces("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 64) ==
          be::error::bad_transfer_encoding);
    CHECK_FALSE(parse_in_pieces("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 64));
}
