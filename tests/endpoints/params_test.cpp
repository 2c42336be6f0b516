#include "execbench/endpoints/params.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

using execbench::endpoints::int_param;
using execbench::endpoints::query_params;
using execbench::endpoints::string_param;

namespace {

query_params parse_ok(std::string_view query)
{
    auto parsed = query_params::parse(query);
    INFO(query);
    REQUIRE(parsed.ok());
    return std::move(parsed).value();
}

std::string parse_error(std::string_view query)
{
    auto parsed = query_params::parse(query);
    INFO(query);
    REQUIRE_FALSE(parsed.ok());
    return parsed.err().message;
}

}  // namespace

TEST_CASE("query_params parses names and values", "[endpoints]")
{
    const auto params = parse_ok("a=1&b=two&flag&empty=");
    CHECK(params.size() == 4);
    CHECK(params.get("a") == "1");
    CHECK(params.get("b") == "two");
    CHECK(params.get("flag") == "");
    CHECK(params.get("empty") == "");
    CHECK_FALSE(params.get("missing").has_value());
    CHECK(params.occurrences("a") == 1);
    CHECK(params.occurrences("missing") == 0);
}

TEST_CASE("query_params skips empty segments", "[endpoints]")
{
    CHECK(parse_ok("").size() == 0);
    CHECK(parse_ok("&").size() == 0);
    const auto params = parse_ok("a=1&&b=2&");
    CHECK(params.size() == 2);
    CHECK(params.get("b") == "2");
}

TEST_CASE("query_params points into the query when nothing needs decoding", "[endpoints]")
{
    const std::string query = "name=allen&n=3";
    const auto params = parse_ok(query);
    const auto value = *params.get("name");
    CHECK(value.data() == query.data() + 5);
}

TEST_CASE("query_params percent-decodes and turns '+' into a space", "[endpoints]")
{
    const auto params = parse_ok("last%20name=von+Trier&x=%41%62%2b&%C3%A9=caf%c3%a9");
    CHECK(params.get("last name") == "von Trier");
    CHECK(params.get("x") == "Ab+");
    CHECK(params.get("\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("query_params views survive copies and moves, short or long", "[endpoints]")
{
    // A short decoded_ lives inside the std::string object (SSO) and moves with it; a long one is on the heap.
    for (const std::string& query : {std::string("a=%41"), "a=%41&b=" + std::string(100, 'x') + "+y"}) {
        auto original = parse_ok(query);
        const auto expected_b = original.get("b") ? std::string(*original.get("b")) : std::string();
        const query_params copy = original;
        query_params moved = std::move(original);
        query_params assigned;
        assigned = copy;
        query_params move_assigned;
        move_assigned = std::move(moved);
        for (const query_params* p : std::initializer_list<const query_params*>{&copy, &assigned, &move_assigned}) {
            CHECK(p->get("a") == "A");
            if (!expected_b.empty())
                CHECK(p->get("b") == expected_b);
        }
    }
}

TEST_CASE("query_params rejects bad percent-encoding with the byte offset", "[endpoints]")
{
    CHECK(parse_error("a=%") == "query: bad percent-encoding at byte 2");
    CHECK(parse_error("a=%4") == "query: bad percent-encoding at byte 2");
    CHECK(parse_error("a=1&b=x%G1") == "query: bad percent-encoding at byte 7");
    CHECK(parse_error("ok=1&n%zz=1") == "query: bad percent-encoding at byte 6");
}

TEST_CASE("query_params rejects an empty name", "[endpoints]")
{
    CHECK(parse_error("=1") == "query: empty parameter name at byte 0");
    CHECK(parse_error("a=1&=2") == "query: empty parameter name at byte 4");
}

TEST_CASE("query_params accepts 32 parameters and rejects 33", "[endpoints]")
{
    std::string query;
    for (int i = 0; i < 32; ++i)
        query += "p" + std::to_string(i) + "=" + std::to_string(i) + "&";
    CHECK(parse_ok(query).size() == 32);
    CHECK(parse_error(query + "one=more") == "query: more than 32 parameters");
}

TEST_CASE("int_param parses strict integers in range", "[endpoints]")
{
    const auto params = parse_ok("n=42&neg=-7&zero=0&big=9223372036854775807");
    CHECK(*int_param(params, "n", 1, 0, 100) == 42);
    CHECK(*int_param(params, "neg", 1, -10, 10) == -7);
    CHECK(*int_param(params, "zero", 1, 0, 10) == 0);
    CHECK(*int_param(params, "big", 0, 0, INT64_MAX) == INT64_MAX);
    CHECK(*int_param(params, "absent", 17, 0, 100) == 17);
    CHECK(*int_param(params, "n", 1, 42, 42) == 42);
}

TEST_CASE("int_param rejects anything but an in-range integer", "[endpoints]")
{
    const std::string message = "delayInMillis must be an integer in 0..60000";
    for (const char* query :
         {"delayInMillis=", "delayInMillis=abc", "delayInMillis=12a", "delayInMillis=+5", "delayInMillis=%205",
          "delayInMillis=5%20", "delayInMillis=1.5", "delayInMillis=-1", "delayInMillis=60001",
          "delayInMillis=99999999999999999999", "delayInMillis=0x10", "delayInMillis=--1", "delayInMillis"}) {
        INFO(query);
        const auto r = int_param(parse_ok(query), "delayInMillis", 0, 0, 60000);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().message == message);
    }
}

TEST_CASE("int_param rejects a parameter given twice", "[endpoints]")
{
    const auto r = int_param(parse_ok("n=1&n=2"), "n", 0, 0, 10);
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().message == "n given more than once");
}

TEST_CASE("string_param returns valid values", "[endpoints]")
{
    const auto params = parse_ok("name=Allen&utf=%E2%82%AC%F0%9F%8E%AC&max=abcd");
    CHECK(*string_param(params, "name") == "Allen");
    CHECK(*string_param(params, "utf") == "\xE2\x82\xAC\xF0\x9F\x8E\xAC");
    CHECK(*string_param(params, "max", 4) == "abcd");
}

TEST_CASE("string_param reports missing, repeated, empty and oversized values", "[endpoints]")
{
    const auto params = parse_ok("name=&twice=a&twice=b&long=abcde");
    const auto message = [&](std::string_view name, std::size_t max_bytes = 256) {
        auto r = string_param(params, name, max_bytes);
        REQUIRE_FALSE(r.ok());
        return r.err().message;
    };
    CHECK(message("lastName") == "lastName is required");
    CHECK(message("name") == "name must not be empty");
    CHECK(message("twice") == "twice given more than once");
    CHECK(message("long", 4) == "long must be at most 4 bytes");
}

TEST_CASE("string_param rejects invalid UTF-8", "[endpoints]")
{
    for (const char* value : {
             "%FF",           // never valid
             "%C3",           // truncated two-byte sequence
             "%C0%AF",        // overlong '/'
             "%E0%80%AF",     // overlong three-byte
             "%F0%80%80%AF",  // overlong four-byte
             "%ED%A0%80",     // surrogate U+D800
             "%F4%90%80%80",  // above U+10FFFF
             "a%80b",         // stray continuation byte
         }) {
        INFO(value);
        const auto r = string_param(parse_ok(std::string("v=") + value), "v");
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().message == "v must be valid UTF-8");
    }
    CHECK(string_param(parse_ok("v=%F4%8F%BF%BF"), "v").ok());  // U+10FFFF, the last code point
    CHECK(string_param(parse_ok("v=%EE%80%80"), "v").ok());     // U+E000, just past the surrogates
}
