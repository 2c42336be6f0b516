// Splitting lists and fields: a list drops empty items, fields keep them (an empty CPU or option is a mistake to
// name, an empty perf CSV field a value of its own).
#include "execbench/core/text.hpp"

#include <catch2/catch.hpp>

using execbench::join;
using execbench::split_fields;
using execbench::split_list;

TEST_CASE("a list drops empty items, fields keep them", "[core][text]")
{
    CHECK(split_list("pool,,loop") == std::vector<std::string>{"pool", "loop"});
    CHECK(split_list("").empty());
    CHECK(split_fields("a,,b", ',') == std::vector<std::string_view>{"a", "", "b"});
    CHECK(split_fields("", ',') == std::vector<std::string_view>{""});
    CHECK(split_fields("a,", ',') == std::vector<std::string_view>{"a", ""});
    CHECK(split_fields("0-3", ',') == std::vector<std::string_view>{"0-3"});
}

TEST_CASE("join puts the separator between items only", "[core][text]")
{
    CHECK(join({"pool", "loop"}, ", ") == "pool, loop");
    CHECK(join({"", "loop"}, ", ") == ", loop");  // an empty first item keeps its place
    CHECK(join({"pool"}, ", ") == "pool");
    CHECK(join({}, ", ").empty());
}
