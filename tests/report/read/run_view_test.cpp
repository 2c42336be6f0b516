// A run's summary row typed once, when the report takes it: its figures parsed, its shape, flags, think time and
// scale read into fields, and a cell left empty absent rather than 0.
#include "execbench/report/read/suite_reader.hpp"

#include <catch2/catch.hpp>

using namespace execbench;
using namespace std::chrono_literals;

TEST_CASE("a summary row is typed once when taken", "[report][read]")
{
    report::run_view v;
    v.take_summary({{"shape", "ramp"},
                    {"noisy", "1"},
                    {"noisy_metrics", "wall_millis;latency_millis_p99"},
                    {"partial", "0"},
                    {"think", "2s..4s"},
                    {"scale", "0.97"},
                    {"requests_ok", "9000"},
                    {"kernel_time_wait", ""}});
    CHECK(v.shape == load::shape::ramp);
    CHECK(v.noisy);
    CHECK(v.noisy_metrics == std::vector<std::string>{"wall_millis", "latency_millis_p99"});
    CHECK_FALSE(v.partial);
    CHECK(v.think.min == 2s);
    CHECK(v.think.max == 4s);
    CHECK(v.think.text() == "2s..4s");
    CHECK(v.scale == Approx(0.97));
    CHECK(v.figure("requests_ok") == 9000);
    // Empty and absent are both not measured: no figure, not 0.
    CHECK_FALSE(v.figure("kernel_time_wait"));
    CHECK_FALSE(v.figure("no_such_column"));
    CHECK(v.number("kernel_time_wait") == 0);

    // A cell set later retypes the row; a row without a shape, think time or scale has none, and ran as written.
    v.set_cell("partial", "1");
    CHECK(v.partial);
    report::run_view bare;
    bare.take_summary({{"think", "0s"}});
    CHECK_FALSE(bare.shape);
    CHECK(bare.think.max.count() == 0);
    CHECK(bare.scale == 1);
    CHECK(bare.noisy_metrics.empty());
}
