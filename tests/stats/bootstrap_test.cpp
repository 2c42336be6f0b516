#include "execbench/stats/bootstrap.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using execbench::stats::median_with_interval;
using execbench::stats::ratio_of_medians;

TEST_CASE("samples from the same spread give a tie: the interval holds 1", "[stats][bootstrap]")
{
    std::vector<double> a{101, 98, 103, 99, 100};
    std::vector<double> b{100, 102, 97, 101, 99};
    auto r = ratio_of_medians(a, b);
    CHECK(r.ratio == Approx(1.0));
    CHECK(r.low <= 1.0);
    CHECK(r.high >= 1.0);
    CHECK_FALSE(r.clears(0));
}

TEST_CASE("samples 2x apart are decided, with an interval around 2 that leaves out 1", "[stats][bootstrap]")
{
    std::vector<double> fast{100, 98, 103, 99, 101};
    std::vector<double> slow{200, 204, 196, 202, 199};
    auto r = ratio_of_medians(slow, fast);
    CHECK(r.ratio == Approx(200.0 / 100.0));
    CHECK(r.clears(0));
    CHECK(r.low > 1.0);
    CHECK(r.low <= 2.0);
    CHECK(r.high >= 2.0);
    // The ends are ratios of observed medians, so they stay inside the extreme ratios of the trials.
    CHECK(r.low >= 196.0 / 103.0);
    CHECK(r.high <= 204.0 / 98.0);
    // The other way round the interval is the reciprocal one, below 1.
    auto inverse = ratio_of_medians(fast, slow);
    CHECK(inverse.high < 1.0);
    CHECK(inverse.ratio == Approx(0.5));
}

TEST_CASE("overlapping trial ranges stay a tie even when the medians differ", "[stats][bootstrap]")
{
    // The starvation-baseline case of the review: medians 0.08 % apart, ranges overlapping.
    std::vector<double> loop{66.41, 66.07, 66.43, 66.30, 66.42};
    std::vector<double> fiber{66.36, 66.30, 66.51, 66.35, 66.40};
    CHECK_FALSE(ratio_of_medians(loop, fiber).clears(0));
}

TEST_CASE("the bootstrap is deterministic and its seed matters only in the draws", "[stats][bootstrap]")
{
    std::vector<double> a{10, 14, 9, 12, 30, 11};
    std::vector<double> b{20, 18, 25, 21, 19};
    auto first = ratio_of_medians(a, b);
    auto second = ratio_of_medians(a, b);
    CHECK(first.low == second.low);
    CHECK(first.high == second.high);
    CHECK(first.ratio == second.ratio);
    auto other_seed = ratio_of_medians(a, b, 10'000, 42);
    CHECK(other_seed.ratio == first.ratio);
}

TEST_CASE("zeros: none against none is a ratio of 1, some against none is infinite", "[stats][bootstrap]")
{
    std::vector<double> zeros{0, 0, 0};
    std::vector<double> some{3, 4, 5};
    auto equal = ratio_of_medians(zeros, zeros);
    CHECK(equal.ratio == 1.0);
    CHECK_FALSE(equal.clears(0));
    auto inf = ratio_of_medians(some, zeros);
    CHECK(std::isinf(inf.ratio));
    CHECK(inf.clears(0));
    CHECK(ratio_of_medians(zeros, some).high == 0.0);
}

TEST_CASE("a median's bootstrap interval lies within the samples and around the median", "[stats][bootstrap]")
{
    std::vector<double> v{1900, 1950, 2000, 2050, 2100};
    auto m = median_with_interval(v);
    CHECK(m.median == 2000);
    CHECK(m.low >= 1900);
    CHECK(m.low <= 2000);
    CHECK(m.high >= 2000);
    CHECK(m.high <= 2100);
    CHECK(m.low < m.high);
    auto one = median_with_interval(std::vector<double>{42});
    CHECK(one.median == 42);
    CHECK(one.low == 42);
    CHECK(one.high == 42);
    CHECK(median_with_interval(std::vector<double>{}).median == 0);
}
