#include "execbench/load/scenario/duration.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;
using namespace std::chrono_literals;

TEST_CASE("durations take seconds or a unit", "[load]")
{
    CHECK(*parse_duration("500ms") == 500ms);
    CHECK(*parse_duration("3s") == 3s);
    CHECK(*parse_duration("2m") == 120s);
    CHECK(*parse_duration("1h") == 3600s);
    CHECK(*parse_duration("250us") == 250us);
    CHECK(*parse_duration("1.5") == 1500ms);
    CHECK(*parse_duration("7") == 7s);
    CHECK(*parse_duration(" 2s ") == 2s);
    for (const char* bad : {"", "s", "abc", "3x", "-1s", "1..2s", "ms500", "1.2.3"}) {
        INFO(bad);
        auto d = parse_duration(bad);
        REQUIRE_FALSE(d.ok());
        CHECK_THAT(d.err().message, Catch::Contains("is not a duration"));
    }
    CHECK(format_duration(500ms) == "500ms");
    CHECK(format_duration(150s) == "2m30s");
    CHECK(format_duration(3s) == "3s");
}
