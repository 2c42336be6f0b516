#include "execbench/report/read/merge.hpp"

#include "execbench/stats/interval_log.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

using namespace execbench;

namespace {

void write(const std::filesystem::path& file, const std::string& text)
{
    std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("merging N generators' logs gives the histogram of all their requests, value for value", "[merge]")
{
    test_support::temp_dir dir;
    constexpr int generators = 3;
    constexpr int seconds = 6;
    stats::histogram all;     // every request of every generator
    stats::histogram window;  // those of seconds 2..4 (the window 2 s .. 5 s)
    std::mt19937_64 rng(5);
    std::lognormal_distribution<double> latency(9.0, 1.5);
    report::merge_options options;
    for (int g = 0; g < generators; ++g) {
        // Each generator started 250 ms after the one before, as shards with a common start do not quite.
        std::int64_t start_ms = 1'700'000'000'000 + g * 250;
        std::string text = stats::format_log_header(start_ms, {"generator " + std::to_string(g)});
        for (int s = 0; s < seconds; ++s) {
            stats::histogram latency_second;
            stats::histogram other_second;
            for (int i = 0; i < 2000; ++i) {
                auto v = static_cast<std::int64_t>(latency(rng)) + 1;
                latency_second.record(v);
                other_second.record(v * 2);
                all.record(v);
                // Shard g's second s spans [s + g/4, s + 1 + g/4) from the earliest start; its middle decides.
                if (s + 0.5 + g * 0.25 >= 2.0 && s + 0.5 + g * 0.25 < 5.0)
                    window.record(v);
            }
            text += *stats::format_log_interval({"arm/latency", double(s), 1.0, latency_second});
            text += *stats::format_log_interval({"arm/service", double(s), 1.0, other_second});
        }
        auto file = dir.path / ("g" + std::to_string(g) + ".hlog");
        write(file, text);
        options.logs.push_back(file);
    }

    options.tag = "arm/latency";
    auto merged = report::merge_logs(options);
    REQUIRE(merged);
    REQUIRE(merged->series.size() == 1);
    const auto& m = merged->series.front();
    CHECK(m.values.counts() == all.counts());
    CHECK(m.values.count() == std::uint64_t{generators} * seconds * 2000);
    for (double p : {0.0, 50.0, 90.0, 99.0, 99.9, 100.0})
        CHECK(m.values.value_at_percentile(p) == all.value_at_percentile(p));
    CHECK(m.intervals == std::size_t{generators} * seconds);
    CHECK(m.logs == std::size_t{generators});
    CHECK(merged->origin_epoch_seconds == Approx(1'700'000'000.0));

    SECTION("a time window takes the intervals whose middle lies inside it")
    {
        options.from_seconds = 2.0;
        options.to_seconds = 5.0;
        auto w = report::merge_logs(options);
        REQUIRE(w);
        CHECK(w->series.front().values.counts() == window.counts());
    }
    SECTION("every tag apart without --tag")
    {
        options.tag.reset();
        auto every = report::merge_logs(options);
        REQUIRE(every);
        REQUIRE(every->series.size() == 2);
        CHECK(every->series[1].tag == "arm/service");
        CHECK(every->series[1].values.count() == all.count());
        auto table = report::format_merge(*every);
        CHECK_THAT(table, Catch::Contains("| arm/latency | 36000 |"));
    }
    SECTION("an unknown tag names the ones there are")
    {
        options.tag = "arm/nope";
        auto r = report::merge_logs(options);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("arm/latency, arm/service"));
    }
    SECTION("a bad log names its file and line")
    {
        auto bad = dir.path / "bad.hlog";
        write(bad, "#[StartTime: 1700000000.000 (seconds since epoch)]\n"
                   "Tag=arm/latency,0.000,1.000,0.1,HISTFAAAAA==\n");
        options.logs.push_back(bad);
        auto r = report::merge_logs(options);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::Contains("bad.hlog: interval log line 2: "));
    }
}
