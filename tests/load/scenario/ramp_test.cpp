#include "execbench/load/scenario/ramp.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;
using namespace std::chrono_literals;

TEST_CASE("ramp profiles follow the Java study's spikes", "[load]")
{
    SECTION("stepped: four steps over 80 %, down over 20 %")
    {
        auto st = ramp_stages(ramp_profile::stepped, 100, 100s);
        CHECK(ramp_users_at(st, 0s) == Approx(0));
        CHECK(ramp_users_at(st, 6s) == Approx(25));     // end of the first riser (30 % of a 20 s step)
        CHECK(ramp_users_at(st, 15s) == Approx(25));    // tread
        CHECK(ramp_users_at(st, 23s) == Approx(37.5));  // half-way up the second riser
        CHECK(ramp_users_at(st, 29s) == Approx(50));    // second tread
        CHECK(ramp_users_at(st, 79s) == Approx(100));
        CHECK(ramp_users_at(st, 90s) == Approx(50));
        CHECK(ramp_users_at(st, 100s) == Approx(0));
    }
    SECTION("smooth: up over 80 %, down over 20 %")
    {
        auto st = ramp_stages(ramp_profile::smooth, 1000, 10s);
        CHECK(ramp_users_at(st, 4s) == Approx(500));
        CHECK(ramp_users_at(st, 8s) == Approx(1000));
        CHECK(ramp_users_at(st, 9s) == Approx(500));
    }
    SECTION("sharp: square spikes")
    {
        auto st = ramp_stages(ramp_profile::sharp, 50, 10s, 10);
        CHECK(ramp_users_at(st, 100ms) == Approx(50));
        CHECK(ramp_users_at(st, 600ms) == Approx(0));
        CHECK(ramp_users_at(st, 1100ms) == Approx(50));
        CHECK(ramp_users_at(st, 9900ms) == Approx(0));
    }
}
