// The chart data each kind of page draws, fed through charts.py (matplotlib): every panel has data.
#include "execbench/core/run_command.hpp"
#include "execbench/report/chart_data/scenario_chart.hpp"
#include "execbench/report/chart_data/summary_chart.hpp"
#include "execbench/report/chart_data/winners_chart.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

using namespace execbench;
using namespace execbench::report;
using namespace execbench::test_support;

TEST_CASE("every chart kind draws data in every panel", "[report][charts]")
{
    if (!have_matplotlib()) {
        WARN("python3-matplotlib not available: charts not drawn");
        return;
    }
    temp_dir d("execbench-report-test");
    auto burst = read_suite(fake_suite(d.path / "results"));
    REQUIRE(burst);
    // The same suite as a 5-second closed run: a per-second timeline.
    auto timeline = *burst;
    for (auto& [arm, v] : timeline.runs["io"]) {
        if (!v.ran())  // loop did not run; it must stay without a chart
            continue;
        v.set_cell("shape", "closed");
        v.set_cell("wall_millis", "5000");
        v.timeline.clear();
        v.server_timeline.clear();
        for (int sec = 0; sec < 5; ++sec) {
            v.timeline.push_back({{"second", double(sec)},
                                  {"requests_ok", 100.0 + sec},
                                  {"requests_error", double(sec % 2)},
                                  {"latency_millis_p50", 10.0 + sec},
                                  {"latency_millis_p90", 20.0 + sec},
                                  {"latency_millis_p99", 30.0 + sec}});
            v.server_timeline.push_back({{"second", double(sec)},
                                         {"server_cpu_percent", 50.0},
                                         {"server_rss_mb", 12.0},
                                         {"server_threads", 4.0}});
            // Only the pool's results hold the newer per-second columns; the fiber's are as old results are.
            if (arm != "pool")
                continue;
            v.timeline.back().insert({{"latency_millis_max", 50.0 + sec},
                                      {"requests_unsent", double(sec / 2)},
                                      {"target_rate", 120.0},
                                      {"loadgen_cpu_percent", 20.0 + sec}});
            if (sec < 4)  // a level read only while requests were issued
                v.timeline.back()["connections_open"] = 60;
            v.server_timeline.back()["server_sockets"] = 61;
        }
    }
    nlohmann::json jobs = nlohmann::json::array();
    auto add = [&](const std::string& name, nlohmann::json data, const std::string& kind) {
        CHECK(data["kind"] == kind);
        jobs.push_back({{"svg", (d.path / (name + ".svg")).string()}, {"name", name}, {"data", std::move(data)}});
    };
    add("distribution", scenario_chart_data(*burst, "io"), "distribution");
    add("timeline", scenario_chart_data(timeline, "io"), "timeline");
    add("winners", winners_chart_data(*burst), "winners");
    // A ramp whose timeline did not record users (results from before it did): the scenario's schedule instead.
    auto ramp = timeline;
    ramp.runs["io"]["pool"].context = *load::parse_context(
        R"({"run_id":"r1","scenario":{"name":"io","load":{"shape":"ramp","stages":[{"duration":"2s","target":100},)"
        R"({"duration":"2799999999ns","target":100},{"duration":"1s","target":0}]}}})");
    for (auto& row : ramp.runs["io"]["pool"].timeline) {  // and no generator series
        row.erase("loadgen_cpu_percent");
        row.erase("connections_open");
    }
    auto ramp_data = scenario_chart_data(ramp, "io");
    REQUIRE(ramp_data["arms"][0].contains("schedule"));
    CHECK(ramp_data["arms"][0]["schedule"]["users"] == nlohmann::json::array({0, 100, 100, 0}));
    CHECK(ramp_data["arms"][0]["schedule"]["second"][2].get<double>() == Approx(4.8));
    CHECK_FALSE(ramp_data["arms"][1].contains("schedule"));  // its context says nothing of a ramp
    add("ramp", ramp_data, "timeline");
    // The index page's picture: p99 per scenario and arm; fiber's errors are beyond the tolerance, hatched.
    auto summary = summary_chart_data({*burst});
    CHECK(summary["suites"][0]["p99"]["pool"] == nlohmann::json::array({1201.0}));
    CHECK(summary["suites"][0]["failed"]["fiber"] == nlohmann::json::array({true}));
    CHECK(summary["suites"][0]["failed"]["pool"] == nlohmann::json::array({false}));
    CHECK(summary["suites"][0]["p99"]["loop"] == nlohmann::json::array({nullptr}));  // not run
    add("summary", summary, "summary");
    // The winners chart prints no lead where fiber's failures decided the cell: it names who failed.
    auto winners = winners_chart_data(*burst);
    bool by_failures = false;
    for (const auto& row : winners["cells"])
        for (const auto& cell : row)
            if (cell["state"] == "won_by_failures") {
                by_failures = true;
                CHECK(cell["failed"] == nlohmann::json::array({"fiber"}));
                CHECK(cell["lead_percent"].is_null());
            }
    CHECK(by_failures);
    auto jobs_file = d.path / "jobs.json";
    write_file(jobs_file, jobs.dump());
    auto manifest_file = d.path / "manifest.json";
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    auto rc =
        run_command({"/usr/bin/python3", script.string(), jobs_file.string(), "--manifest", manifest_file.string()});
    REQUIRE(rc);
    REQUIRE(*rc == 0);
    auto manifest = nlohmann::json::parse(read_back(manifest_file));
    REQUIRE(manifest.size() == 5);
    for (const auto& chart : manifest) {
        INFO(chart["svg"].get<std::string>());
        REQUIRE(chart["panels"].size() >= 1);
        for (const auto& panel : chart["panels"]) {
            INFO(panel["title"].get<std::string>());
            CHECK(panel["points"].get<int>() > 0);
        }
    }
    CHECK(manifest[0]["panels"].size() == 3);  // distribution, wall time, req/s
    // 2 arms' latency (of 3), requests with the target rate, errors and unsent, CPU of server and generator,
    // memory, threads, sockets of server and generator; no users panel: the shape has no users.
    std::vector<std::string> titles;
    for (const auto& panel : manifest[1]["panels"])
        titles.push_back(panel["title"].get<std::string>());
    CHECK(titles.size() == 8);
    auto has = [&](const std::string& t) {
        return std::any_of(titles.begin(), titles.end(), [&](const auto& x) { return x.rfind(t, 0) == 0; });
    };
    CHECK(has("errors (filled), unsent"));
    CHECK(has("CPU: server (filled), load generator (hollow)"));
    CHECK(has("open sockets"));
    CHECK_FALSE(has("ramp users"));
    // Without a generator series, the CPU panel's title promises no hollow one.
    std::vector<std::string> ramp_titles;
    for (const auto& panel : manifest[3]["panels"])
        ramp_titles.push_back(panel["title"].get<std::string>());
    CHECK(std::count(ramp_titles.begin(), ramp_titles.end(), "server CPU") == 1);
    CHECK(std::count(ramp_titles.begin(), ramp_titles.end(), "server open sockets") == 1);
    // The schedule is drawn on its own axis beside the pool's latency: one more panel than the plain timeline.
    CHECK(ramp_titles.size() == titles.size() + 1);
    // A series a run lacks is absent from its chart data, not zeros; one with values in some seconds only keeps them.
    auto timeline_data = nlohmann::json::parse(jobs[1]["data"].dump());
    CHECK(timeline_data["arms"][0]["series"].contains("connections_open@second"));
    CHECK_FALSE(timeline_data["arms"][1]["series"].contains("connections_open"));
}
