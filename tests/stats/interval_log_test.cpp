#include "execbench/stats/interval_log.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace execbench::stats;

namespace {

// Written by HdrHistogram 2.1.11's HistogramLogWriter (Java), absolute timestamps.
constexpr const char* java_log =
    "#[Histogram log format version 1.3]\n"
    "#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
    "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
    "Tag=lat,1700000000.123,1.000,0.025,HISTFAAAACZ42pNpmSzMwMDAxgABzFCaEURcm7yEwf4DROA8P9NDDyYAdVAGmA==\n";

histogram with(std::initializer_list<std::int64_t> values)
{
    histogram h;
    for (auto v : values)
        h.record(v);
    return h;
}

}  // namespace

TEST_CASE("an interval log has HdrHistogram's header and lines", "[interval_log]")
{
    auto header = format_log_header(1'700'000'000'123, {"execbench run x"});
    CHECK(header == "#execbench run x\n"
                    "#[Histogram log format version 1.3]\n"
                    "#[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]\n"
                    "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
                    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
    auto line = format_log_interval({"loop/latency", 2.0, 1.0, with({1000, 25000})});
    REQUIRE(line);
    CHECK(line->starts_with("Tag=loop/latency,2.000,1.000,25.000,HISTF"));
    CHECK(line->ends_with("\n"));
}

TEST_CASE("an interval log round-trips", "[interval_log]")
{
    std::string text = format_log_header(1'700'000'000'000, {});
    text += *format_log_interval({"a", 0.0, 1.0, with({5, 6, 7})});
    text += *format_log_interval({"b", 0.0, 1.0, with({})});
    text += *format_log_interval({"", 1.0, 0.5, with({1'000'000})});
    auto log = parse_interval_log(text);
    REQUIRE(log);
    CHECK(log->times.start_time_seconds == Approx(1'700'000'000.0));
    CHECK(log->times.base_time_seconds == Approx(1'700'000'000.0));
    REQUIRE(log->intervals.size() == 3);
    CHECK(log->intervals[0].tag == "a");
    CHECK(log->intervals[0].values.counts() == with({5, 6, 7}).counts());
    CHECK(log->intervals[1].values.count() == 0);
    CHECK(log->intervals[2].tag.empty());
    CHECK(log->intervals[2].start_seconds == 1.0);
    CHECK(log->intervals[2].length_seconds == 0.5);
    CHECK(log->intervals[2].values.value_at_percentile(50) == with({1'000'000}).value_at_percentile(50));
}

TEST_CASE("HdrHistogram's own log reads", "[interval_log]")
{
    auto log = parse_interval_log(java_log);
    REQUIRE(log);
    REQUIRE(log->intervals.size() == 1);
    CHECK(log->intervals[0].tag == "lat");
    CHECK(log->intervals[0].values.count() == 2);
    CHECK(log->intervals[0].start_seconds == Approx(1'700'000'000.123));
}

TEST_CASE("without StartTime and BaseTime the times are deduced as HdrHistogram does", "[interval_log]")
{
    std::string line = *format_log_interval({"", 12.5, 1.0, with({3})});
    auto log = parse_interval_log(line);
    REQUIRE(log);
    CHECK(log->times.start_time_seconds == 12.5);
    CHECK(log->times.base_time_seconds == 0.0);
}

TEST_CASE("a tag HdrHistogram would split is refused", "[interval_log]")
{
    for (const char* tag : {"a,b", "a b", "a\nb"})
        CHECK_FALSE(format_log_interval({tag, 0, 1, with({1})}));
}

TEST_CASE("a corrupt or truncated interval line gives an error naming the line", "[interval_log]")
{
    std::string good = format_log_header(1'700'000'000'000, {}) + *format_log_interval({"t", 0, 1, with({5, 9})});
    const std::string bad_lines[] = {
        "Tag=t",                           // a tag alone
        "0.000,1.000,0.005",               // no histogram
        "x,1.000,0.005,HISTFAAAAA==",      // a start that is not a number
        "0.000,1.000,0.005,not*base64",    // not base64
        "0.000,1.000,0.005,HISTFAAAAA==",  // a histogram cut short
        "0.000,1.000,0.005,HISTF,extra",   // too many fields
    };
    for (const auto& bad : bad_lines) {
        CAPTURE(bad);
        auto r = parse_interval_log(good + bad + "\n");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::StartsWith("interval log line 6: "));
    }
    // Every truncation of a valid line fails or reads; none crashes.
    auto last = good.rfind("Tag=");
    for (std::size_t n = last; n < good.size(); ++n)
        (void)parse_interval_log(good.substr(0, n));
}
