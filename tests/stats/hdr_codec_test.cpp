#include "execbench/stats/hdr_codec.hpp"

#include "execbench/core/base64.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

using namespace execbench::stats;

namespace {

// Written by HdrHistogram 2.1.11 (Java, Debian's libhdrhistogram-java) for Histogram(1, 3600000000, 3) holding the
// values 1000 and 25000: HistogramLogWriter's histogram field, and its V2 encoding inflated.
constexpr const char* java_payload = "HISTFAAAACZ42pNpmSzMwMDAxgABzFCaEURcm7yEwf4DROA8P9NDDyYAdVAGmA==";
const std::vector<std::uint8_t> java_v2 = {0x1c, 0x84, 0x93, 0x13, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                                           0x00, 0x00, 0x00, 0x00, 0xd6, 0x93, 0xa4, 0x00, 0x3f, 0xf0, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x00, 0xcf, 0x0f, 0x02, 0xe1, 0x48, 0x02};

histogram random_histogram(std::uint32_t seed, int values)
{
    histogram h;
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> d(8.0, 2.0);
    for (int i = 0; i < values; ++i)
        h.record(static_cast<std::int64_t>(d(rng)) + 1, rng() % 3 == 0 ? 1'000'000'000'000ULL : 1);
    return h;
}

}  // namespace

TEST_CASE("the V2 encoding is byte for byte HdrHistogram's", "[hdr_codec]")
{
    histogram h;
    h.record(1000);
    h.record(25000);
    CHECK(encode_v2(h) == java_v2);
}

TEST_CASE("HdrHistogram's own interval payload decodes to the values it holds", "[hdr_codec]")
{
    auto h = decode_log_payload(java_payload);
    REQUIRE(h);
    CHECK(h->count() == 2);
    CHECK(h->value_at_percentile(50) == 1000);
    CHECK(h->value_at_percentile(100) == 25007);  // the highest value 25000's bucket holds
    CHECK(h->min() == 1000);
    CHECK(h->max() == 25007);
    CHECK(h->lowest() == 1);
    CHECK(h->highest() == 3'600'000'000);
    CHECK(h->significant_digits() == 3);
}

TEST_CASE("encodings round-trip bucket for bucket", "[hdr_codec]")
{
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        auto h = random_histogram(seed, 5000);
        auto plain = decode_v2(encode_v2(h));
        REQUIRE(plain);
        CHECK(plain->counts() == h.counts());
        auto compressed = encode_compressed(h);
        REQUIRE(compressed);
        auto back = decode_compressed(*compressed);
        REQUIRE(back);
        CHECK(back->counts() == h.counts());
        CHECK(back->count() == h.count());
        for (double p : {0.0, 50.0, 90.0, 99.0, 99.9, 100.0})
            CHECK(back->value_at_percentile(p) == h.value_at_percentile(p));
        auto text = encode_log_payload(h);
        REQUIRE(text);
        CHECK(text->starts_with("HISTF"));  // the compressed V2 cookie in base64, as in every HdrHistogram log
        auto again = decode_log_payload(*text);
        REQUIRE(again);
        CHECK(again->counts() == h.counts());
    }
}

TEST_CASE("an empty histogram encodes as HdrHistogram writes one", "[hdr_codec]")
{
    histogram empty;
    auto bytes = encode_v2(empty);
    REQUIRE(bytes.size() == 41);
    CHECK(bytes.back() == 0x01);  // one empty bucket: ZigZag(-1)
    auto back = decode_v2(bytes);
    REQUIRE(back);
    CHECK(back->count() == 0);
    CHECK(back->max() == 0);
}

TEST_CASE("corrupt or truncated encodings give an error, not a crash", "[hdr_codec]")
{
    auto h = random_histogram(7, 1000);
    auto compressed = encode_compressed(h).value();
    auto plain = encode_v2(h);

    // Every truncation of either form fails cleanly.
    for (std::size_t n = 0; n < compressed.size(); ++n)
        CHECK_FALSE(decode_compressed(std::span(compressed).first(n)));
    for (std::size_t n = 0; n < plain.size(); ++n)
        CHECK_FALSE(decode_v2(std::span(plain).first(n)));

    // Flipped bytes: either an error or a histogram, never a crash (zlib's checksum catches most).
    std::mt19937 rng(11);
    for (int i = 0; i < 500; ++i) {
        auto bad = compressed;
        bad[rng() % bad.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        (void)decode_compressed(bad);
        auto bad_plain = plain;
        bad_plain[rng() % bad_plain.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        (void)decode_v2(bad_plain);
    }

    SECTION("an empty run longer than the histogram")
    {
        auto huge = std::vector<std::uint8_t>(java_v2.begin(), java_v2.begin() + 40);
        // ZigZag(-2^62) in nine bytes, announced as the payload length.
        for (std::uint8_t b : {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
            huge.push_back(b);
        huge[7] = 9;
        auto r = decode_v2(huge);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("more buckets"));
    }
    SECTION("a wrong cookie")
    {
        auto bad = plain;
        bad[0] = 0;
        auto r = decode_v2(bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("cookie"));
    }
    SECTION("an unsupported configuration")
    {
        auto bad = plain;
        bad[15] = 9;  // 9 significant digits
        auto r = decode_v2(bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("significant digits"));
    }
}
