#include "execbench/load/scenario/open_files.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("the open-file limit is checked before connections are opened", "[load]")
{
    CHECK(ensure_open_files(10).ok());
    auto too_many = ensure_open_files(1'000'000'000);
    REQUIRE_FALSE(too_many.ok());
    CHECK_THAT(too_many.err().message, Catch::Contains("RLIMIT_NOFILE") && Catch::Contains("Remedy"));
}
