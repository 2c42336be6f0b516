#include "execbench/stats/histogram.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using execbench::stats::histogram;

namespace {

/// Percentiles in thousandths of a percent, so the exact nearest rank is computed in integers.
constexpr std::int64_t percentiles_milli[] = {0,      1'000,  10'000, 25'000, 50'000, 75'000,
                                              90'000, 99'000, 99'900, 99'990, 100'000};

/// The highest value the histogram cannot tell apart from `value`: what a single-value histogram reports at 100 %.
std::int64_t highest_equivalent(std::int64_t value, const histogram& like)
{
    histogram one(like.lowest(), like.highest(), like.significant_digits());
    one.record(value);
    return one.value_at_percentile(100);
}

/// Records `values` and checks every percentile against the nearest-rank value of the sorted data.
void check_against_exact(std::vector<std::int64_t> values, const histogram& config)
{
    histogram h(config.lowest(), config.highest(), config.significant_digits());
    for (auto v : values)
        h.record(v);
    std::sort(values.begin(), values.end());
    auto n = static_cast<std::int64_t>(values.size());
    REQUIRE(h.count() == values.size());
    CHECK(h.min() == values.front());
    CHECK(h.max() == values.back());
    long double sum = std::accumulate(values.begin(), values.end(), 0.0L);
    CHECK(h.mean() == Approx(static_cast<double>(sum / n)).epsilon(1e-12));

    double precision = std::pow(10.0, -config.significant_digits());
    for (auto milli : percentiles_milli) {
        // Nearest rank: the smallest rank whose share of the data reaches the percentile.
        auto rank = std::max<std::int64_t>(1, (milli * n + 99'999) / 100'000);
        auto exact = values[static_cast<std::size_t>(rank - 1)];
        auto got = h.value_at_percentile(static_cast<double>(milli) / 1000.0);
        INFO("percentile " << static_cast<double>(milli) / 1000.0 << ", exact " << exact << ", got " << got);
        if (milli == 0) {
            CHECK(got <= exact);
            CHECK(static_cast<double>(exact - got) <= static_cast<double>(exact) * precision);
        } else {
            // The promise to users: at or above the exact value, within the stated significant digits...
            CHECK(got >= exact);
            CHECK(static_cast<double>(got - exact) <= static_cast<double>(exact) * precision);
            // ...and the precise semantics: the top of the exact value's bucket.
            CHECK(got == highest_equivalent(exact, config));
        }
    }
}

}  // namespace

TEST_CASE("histogram percentiles of uniform data are within 3 significant digits", "[stats]")
{
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::int64_t> dist(1, 10'000'000);
    std::vector<std::int64_t> values(100'000);
    for (auto& v : values)
        v = dist(rng);
    check_against_exact(values, histogram());
}

TEST_CASE("histogram percentiles of long-tailed data are within 3 significant digits", "[stats]")
{
    std::mt19937_64 rng(7);
    std::exponential_distribution<double> dist(1.0 / 2'000.0);
    std::vector<std::int64_t> values(50'000);
    for (auto& v : values)
        v = 1 + static_cast<std::int64_t>(dist(rng) * (1 + dist(rng) / 500.0));
    check_against_exact(values, histogram());
}

TEST_CASE("histogram percentiles of bimodal data are within 3 significant digits", "[stats]")
{
    std::mt19937_64 rng(3);
    std::normal_distribution<double> fast(500.0, 50.0);
    std::normal_distribution<double> slow(250'000.0, 20'000.0);
    std::vector<std::int64_t> values;
    for (int i = 0; i < 30'000; ++i)
        values.push_back(std::max<std::int64_t>(1, std::llround(i % 10 == 0 ? slow(rng) : fast(rng))));
    check_against_exact(values, histogram());
}

TEST_CASE("histogram holds small values exactly and honours other precisions", "[stats]")
{
    std::vector<std::int64_t> values;
    for (std::int64_t v = 1; v <= 2'047; ++v)
        values.push_back(v);
    check_against_exact(values, histogram());

    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::int64_t> dist(100'000, 100'000'000);
    std::vector<std::int64_t> wide(20'000);
    for (auto& v : wide)
        v = dist(rng);
    check_against_exact(wide, histogram(1'000, 1'000'000'000, 2));
    check_against_exact(wide, histogram(1, 1'000'000'000, 5));
}

TEST_CASE("histogram below lowest * 10^digits keeps a step of lowest", "[stats]")
{
    histogram h(1'000, 1'000'000'000, 2);
    h.record(1'100);
    CHECK(h.min() == 1'100);
    auto got = h.value_at_percentile(100);
    CHECK(got >= 1'100);
    CHECK(got - 1'100 < 1'000);
}

TEST_CASE("histogram of a single value reports it everywhere", "[stats]")
{
    histogram h;
    h.record(1'234'567, 10);
    CHECK(h.count() == 10);
    CHECK(h.min() == 1'234'567);
    CHECK(h.max() == 1'234'567);
    CHECK(h.mean() == Approx(1'234'567.0));
    auto top = h.value_at_percentile(100);
    CHECK(top >= 1'234'567);
    CHECK(top - 1'234'567 < 1'235);
    CHECK(h.value_at_percentile(50) == top);
    CHECK(h.value_at_percentile(0) <= 1'234'567);
    check_against_exact({1'234'567}, histogram());
}

TEST_CASE("histogram records values at the edges of its range and at bucket boundaries", "[stats]")
{
    histogram h;
    std::vector<std::int64_t> edges = {1, 2, 2'047, 2'048, 2'049, 4'095, 4'096, 3'599'999'999, 3'600'000'000};
    check_against_exact(edges, h);
    for (auto v : edges)
        h.record(v);
    CHECK(h.clamped() == 0);
    CHECK(h.min() == 1);
    CHECK(h.max() == 3'600'000'000);
    CHECK(h.value_at_percentile(0) == 1);
    CHECK(h.value_at_percentile(100) >= 3'600'000'000);
}

TEST_CASE("histogram clamps values outside its range and counts them", "[stats]")
{
    histogram h(10, 100'000, 3);
    h.record(0);
    h.record(-5);
    h.record(5, 3);
    h.record(1'000'000);
    h.record(std::numeric_limits<std::int64_t>::max());
    h.record(500);
    CHECK(h.count() == 8);
    CHECK(h.clamped() == 7);
    CHECK(h.min() == 10);
    CHECK(h.max() == 100'000);
    CHECK(h.value_at_percentile(50) == highest_equivalent(10, h));
    CHECK(h.value_at_percentile(100) == highest_equivalent(100'000, h));
    CHECK(h.mean() == Approx((10.0 * 5 + 500 + 100'000.0 * 2) / 8));
}

TEST_CASE("histogram of nothing reports zeros", "[stats]")
{
    histogram h;
    CHECK(h.count() == 0);
    CHECK(h.min() == 0);
    CHECK(h.max() == 0);
    CHECK(h.mean() == 0);
    CHECK(h.value_at_percentile(99) == 0);
    h.record(42, 0);
    CHECK(h.count() == 0);
    CHECK(h.min() == 0);
    h.record(42);
    h.reset();
    CHECK(h == histogram());
}

TEST_CASE("histogram rejects impossible configurations", "[stats]")
{
    CHECK_THROWS_AS(histogram(0, 1'000, 3), std::invalid_argument);
    CHECK_THROWS_AS(histogram(100, 150, 3), std::invalid_argument);
    CHECK_THROWS_AS(histogram(1, 1'000, 0), std::invalid_argument);
    CHECK_THROWS_AS(histogram(1, 1'000, 6), std::invalid_argument);
    CHECK_THROWS_AS(histogram(1, std::numeric_limits<std::int64_t>::max(), 3), std::invalid_argument);
    CHECK_NOTHROW(histogram(1, std::numeric_limits<std::int64_t>::max() / 2, 3));
}

TEST_CASE("histogram merge equals recording everything into one", "[stats]")
{
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::int64_t> dist(0, 5'000'000'000);
    histogram all;
    histogram parts[3];
    for (int i = 0; i < 30'000; ++i) {
        auto v = dist(rng);
        all.record(v);
        parts[i % 3].record(v);
    }
    histogram merged;
    for (const auto& part : parts)
        REQUIRE(merged.merge(part).ok());
    CHECK(merged == all);
    CHECK(merged.clamped() == all.clamped());
    CHECK(merged.clamped() > 0);
    CHECK(merged.value_at_percentile(99.9) == all.value_at_percentile(99.9));

    // Merging an empty histogram changes nothing; merging into an empty one copies.
    REQUIRE(merged.merge(histogram()).ok());
    CHECK(merged == all);
    histogram empty;
    REQUIRE(empty.merge(all).ok());
    CHECK(empty == all);
}

TEST_CASE("histograms with different configurations do not merge", "[stats]")
{
    histogram a;
    a.record(100);
    auto before = a;
    for (auto other : {histogram(1, 1'000'000, 3), histogram(1, 3'600'000'000, 2), histogram(2, 3'600'000'000, 3)}) {
        other.record(100);
        auto r = a.merge(other);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.err().message, Catch::Contains("configurations differ"));
        CHECK(a == before);
    }
}

TEST_CASE("histogram serialize and parse round trip exactly", "[stats]")
{
    std::mt19937_64 rng(9);
    std::lognormal_distribution<double> dist(8.0, 1.5);
    histogram h;
    for (int i = 0; i < 20'000; ++i)
        h.record(std::llround(dist(rng)));
    h.record(0);
    h.record(9'000'000'000);

    auto text = h.serialize();
    CHECK(text.starts_with("hist1 1 3600000000 3 20002 2 1 3600000000 "));
    CHECK(text.find('\n') == std::string::npos);
    auto back = histogram::parse(text);
    REQUIRE(back.ok());
    CHECK(*back == h);
    CHECK(back->serialize() == text);
    CHECK(back->value_at_percentile(99) == h.value_at_percentile(99));
    CHECK(back->mean() == h.mean());

    // Sparse: 20,000 values land in far fewer buckets than the layout holds.
    INFO("serialized size " << text.size());
    CHECK(text.size() < 20'000);

    histogram empty(10, 1'000, 1);
    auto empty_text = empty.serialize();
    CHECK(empty_text == "hist1 10 1000 1 0 0 0 0 0 -");
    auto empty_back = histogram::parse(empty_text);
    REQUIRE(empty_back.ok());
    CHECK(*empty_back == empty);

    histogram other_config(1, 1'000'000, 2);
    other_config.record(77);
    auto other_back = histogram::parse(other_config.serialize());
    REQUIRE(other_back.ok());
    CHECK(*other_back == other_config);
    CHECK_FALSE(*other_back == histogram(1, 1'000'000, 2));
}

TEST_CASE("histogram parse rejects malformed text with a message naming the problem", "[stats]")
{
    histogram h;
    h.record(100, 2);
    h.record(5'000);
    auto good = h.serialize();
    // 100 sits in bucket 100; 5000 in bucket 3298 (4096..8191 step 4), 3197 empty buckets after 101.
    REQUIRE(good == "hist1 1 3600000000 3 3 0 100 5000 5200 ~100,2,~3197,1");
    REQUIRE(histogram::parse(good).ok());

    struct bad_case {
        std::string text;
        std::string message;
    };
    const std::string head = "hist1 1 3600000000 3 3 0 100 5000 5200 ";
    const bad_case cases[] = {
        {"", "expected text starting with 'hist1'"},
        {"hist2 1 3600000000 3 3 0 100 5000 5200 ~100,2,~3197,1", "starting with 'hist1'"},
        {"hist1 1 3600000000 3 3 0 100 5000 5200", "10 space-separated fields"},
        {head + "~100,2,~3197,1 ", "10 space-separated fields"},
        {"hist1  1 3600000000 3 3 0 100 5000 5200 ~100,2,~3197,1", "10 space-separated fields"},
        {"hist1 x 3600000000 3 3 0 100 5000 5200 ~100,2,~3197,1", "lowest: expected an integer, got 'x'"},
        {"hist1 1 3600000000 9 3 0 100 5000 5200 ~100,2,~3197,1", "significant digits must be 1..5"},
        {"hist1 1 1 3 3 0 100 5000 5200 ~100,2,~3197,1", "highest value must be >= 2 * lowest"},
        {"hist1 1 3600000000 3 -3 0 100 5000 5200 ~100,2,~3197,1", "total count: expected an integer"},
        {"hist1 1 3600000000 3 3 0 100 5000 5200.5x ~100,2,~3197,1", "sum: expected a non-negative number"},
        {"hist1 1 3600000000 3 3 0 100 5000 -5200 ~100,2,~3197,1", "sum: expected a non-negative number"},
        {"hist1 1 3600000000 3 4 0 100 5000 5200 ~100,2,~3197,1", "does not match the bucket counts"},
        {"hist1 1 3600000000 3 3 4 100 5000 5200 ~100,2,~3197,1", "clamped count 4 exceeds the total"},
        {head + "~100,2,~99999999,1", "reaches past the last bucket"},
        {head + "~100,2,~3197,1,~20252,1,1", "more buckets than the 23552"},
        {head + "~100,2,~0,~3197,1", "must be one positive run"},
        {head + "~100,2,~3000,~197,1", "must be one positive run"},
        {head + "~100,2,~3197,1,~5", "trailing empty run"},
        {head + "~100,2,0,~3196,1", "bucket 101 has a zero count"},
        {head + "~100,2,,~3197,1", "bucket count: expected an integer, got ''"},
        {head + "~100,2,~3197,x", "bucket count: expected an integer, got 'x'"},
        {head + "~1x0,2,~3197,1", "empty run: expected an integer, got '1x0'"},
        {"hist1 1 3600000000 3 3 0 101 5000 5200 ~100,2,~3197,1", "do not fall in the first and last"},
        {"hist1 1 3600000000 3 3 0 100 4000 5200 ~100,2,~3197,1", "do not fall in the first and last"},
        {"hist1 1 3600000000 3 3 0 5000 100 5200 ~100,2,~3197,1", "lowest <= min <= max <= highest"},
        {"hist1 1 3600000000 3 3 0 100 5000 1 ~100,2,~3197,1", "sum is outside"},
        {"hist1 1 3600000000 3 0 0 100 0 0 -", "empty histogram must have min, max and sum 0"},
        {"hist1 1 3600000000 3 0 0 0 0 0 ", "bucket count: expected an integer, got ''"},
    };
    for (const auto& c : cases) {
        INFO("text: '" << c.text << "'");
        auto r = histogram::parse(c.text);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.err().message, Catch::Contains(c.message));
    }
}
