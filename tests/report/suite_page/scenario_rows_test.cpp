// A figure a run did not measure shows as "–" in the scenario table, never as 0.
#include "execbench/report/suite_page/scenario_rows.hpp"

#include "execbench/report/word/words.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace execbench;
using namespace execbench::report;

TEST_CASE("a figure the run did not measure reads \"–\", a measured zero reads 0", "[report][suite_page]")
{
    CHECK(count(std::optional<double>{}) == "–");
    CHECK(count(std::optional<double>{0.0}) == "0");
    CHECK(millis(std::optional<double>{}) == "–");
    CHECK(fixed_or_dash(std::nullopt, 1) == "–");
    CHECK(fixed_or_dash(2.25, 1) == "2.2");

    suite_data s;
    s.scenarios = {"io"};
    s.models = {"pool", "loop"};
    for (const std::string arm : {"pool", "loop"}) {
        auto& v = s.runs["io"][arm];
        v.scenario = "io";
        v.model = v.arm = arm;
        v.status = load::run_status::ok;
        v.run_id = "r-" + arm;
        // loop's row is of a file that had no threads column (or an empty cell): not measured.
        v.take_summary({{"scenario", "io"},
                        {"trials", "1"},
                        {"shape", "closed"},
                        {"requests_ok", "10"},
                        {"server_threads_max", arm == "pool" ? "0" : ""}});
    }
    auto rows = scenario_rows(s, "io");
    auto threads = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.front() == "threads max"; });
    REQUIRE(threads != rows.end());
    CHECK(*threads == std::vector<std::string>{"threads max", "0", "–"});
}
