#include "execbench/stats/trials.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <vector>

using execbench::stats::is_noisy;
using execbench::stats::spread;
using execbench::stats::summarize;

TEST_CASE("summarize takes the median, min and max of an odd count", "[stats]")
{
    std::vector<double> values = {12.0, 10.0, 11.0, 30.0, 9.0};
    auto s = summarize(values);
    CHECK(s.median == 11.0);
    CHECK(s.min == 9.0);
    CHECK(s.max == 30.0);
    CHECK(s.relative() == Approx(21.0 / 11.0));
    // The input is left as given.
    CHECK(values == std::vector<double>{12.0, 10.0, 11.0, 30.0, 9.0});
}

TEST_CASE("summarize averages the middle two of an even count", "[stats]")
{
    std::vector<double> values = {4.0, 1.0, 3.0, 2.0};
    auto s = summarize(values);
    CHECK(s.median == 2.5);
    CHECK(s.min == 1.0);
    CHECK(s.max == 4.0);
}

TEST_CASE("summarize of nothing is all zero", "[stats]")
{
    auto s = summarize({});
    CHECK(s.median == 0);
    CHECK(s.min == 0);
    CHECK(s.max == 0);
    CHECK(s.relative() == 0);
    CHECK_FALSE(is_noisy(s));
}

TEST_CASE("summarize of one value has no spread", "[stats]")
{
    std::vector<double> values = {42.5};
    auto s = summarize(values);
    CHECK(s.median == 42.5);
    CHECK(s.min == 42.5);
    CHECK(s.max == 42.5);
    CHECK(s.relative() == 0);
}

TEST_CASE("summarize leaves out trials that measured nothing", "[stats]")
{
    std::vector<double> values = {std::numeric_limits<double>::quiet_NaN(), 5.0, 7.0, 6.0};
    auto s = summarize(values);
    CHECK(s.median == 6.0);
    CHECK(s.min == 5.0);
    CHECK(s.max == 7.0);
}

TEST_CASE("relative spread is zero for a zero median", "[stats]")
{
    spread s{0.0, -1.0, 1.0};
    CHECK(s.relative() == 0);
    CHECK_FALSE(is_noisy(s));
}

TEST_CASE("is_noisy compares the range with the threshold share of the median", "[stats]")
{
    std::vector<double> steady = {100.0, 105.0, 95.0};
    std::vector<double> noisy = {100.0, 130.0, 95.0};
    CHECK(summarize(steady).relative() == Approx(0.10));
    CHECK_FALSE(is_noisy(summarize(steady)));
    CHECK(is_noisy(summarize(noisy)));
    CHECK(is_noisy(summarize(steady), 0.05));
    CHECK_FALSE(is_noisy(summarize(noisy), 0.5));
}
