#include "execbench/stats/interval_series.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace execbench::stats;

TEST_CASE("an interval series keeps every interval's values exactly", "[interval_series]")
{
    interval_series s;
    std::vector<histogram> expected(5);
    std::mt19937 rng(3);
    for (int i = 0; i < 20'000; ++i) {
        // Mostly in order, sometimes late: a value for an interval already sealed.
        std::size_t at = std::min<std::size_t>(4, static_cast<std::size_t>(i / 4000));
        if (at > 0 && rng() % 50 == 0)
            at -= 1;
        auto v = static_cast<std::int64_t>(1 + rng() % 2'000'000);
        s.record(at, v);
        expected[at].record(v);
    }
    REQUIRE(s.size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
        CAPTURE(i);
        CHECK(s.at(i).counts() == expected[i].counts());
    }
    CHECK(s.at(9).count() == 0);
}

TEST_CASE("interval series merge interval by interval", "[interval_series]")
{
    interval_series a;
    interval_series b;
    a.record(0, 10);
    a.record(2, 30);
    b.record(1, 20);
    b.record(2, 31);
    b.record(5, 60);
    REQUIRE(a.merge(b));
    CHECK(a.size() == 6);
    CHECK(a.at(0).count() == 1);
    CHECK(a.at(1).count() == 1);
    CHECK(a.at(2).count() == 2);
    CHECK(a.at(3).count() == 0);
    CHECK(a.at(5).value_at_percentile(100) == 60);
    interval_series coarse(1, 1000, 2);
    CHECK_FALSE(a.merge(coarse));
}
