#include "execbench/report/suite_page/capacity_section.hpp"

#include "execbench/core/run_command.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/report/chart_data/capacity_chart.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/html_pages.hpp"
#include "execbench/report/judge/capacity_figures.hpp"
#include "execbench/report/suite_page/suite_page.hpp"
#include "execbench/report/word/capacity_text.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

using namespace execbench;
using namespace execbench::report;
using execbench::test_support::temp_dir;

namespace {

/// A search of a server whose SLO boundary is `boundary` req/s and whose CPU per request is `micros` µs.
load::capacity_record search(const std::string& arm, double boundary, double micros, double generator_limit = 1e12)
{
    auto step = [=](double rate, const std::string&) -> result<load::capacity_step> {
        load::capacity_step s;
        s.achieved_rps = rate;
        s.p50_millis = 100;
        s.p99_millis = rate <= boundary ? 120 : 400;
        s.server_cpu_percent = rate * micros / 1e6 * 100;
        s.met_slo = rate <= boundary;
        s.generator_bound = rate >= generator_limit;
        return s;
    };
    load::capacity_record r;
    r.run_id = "run-" + arm;
    r.scenario = "capacity-io-100";
    r.arm = arm;
    r.model = arm;
    r.slo = "p99<=250ms,errors=0,unsent=0";
    r.connections = "fixed 1,000 connections";
    r.result = load::search_capacity(load::capacity_options{}, step);
    return r;
}

/// A capacity suite folder under `root` as bench-suite writes it: a pool measured at 1,960 req/s and a loop
/// stopped by the generator at 6,000.
std::filesystem::path two_arm_suite(const std::filesystem::path& root)
{
    auto suite_dir = root / "capacity";
    std::filesystem::create_directories(suite_dir);
    auto paths = load::capacity_paths_for(suite_dir / "capacity.csv");
    REQUIRE(load::write_capacity(search("pool", 1960, 60), paths).ok());
    REQUIRE(load::write_capacity(search("loop", 50'000, 20, 6'000), paths).ok());
    return suite_dir;
}

}  // namespace

TEST_CASE("a suite's capacity searches read back into its page, chart data and the README headline",
          "[report][capacity]")
{
    temp_dir dir;
    auto suite_dir = two_arm_suite(dir.path);
    {
        // The pool's first step's context: its warm-up and length are every step's.
        std::ofstream ctx(suite_dir / "capacity-context.jsonl");
        ctx << R"({"run_id":"run-pool","started_at":"2026-01-01T00:00:00Z",)"
               R"("scenario":{"name":"capacity-io-100","warmup":"1s","load":{"duration":"3s"}}})"
            << "\n";
    }

    auto s = read_suite(suite_dir);
    REQUIRE(s.ok());
    REQUIRE(s->capacity_scenarios == std::vector<std::string>{"capacity-io-100"});
    REQUIRE(s->models == std::vector<std::string>{"pool", "loop"});
    const auto& pool = s->capacity.at("capacity-io-100").at("pool");
    CHECK(pool.result.what == load::capacity_result::outcome::measured);
    CHECK(capacity_cell(pool.result).find(" req/s (95 % ") != std::string::npos);
    const auto& loop = s->capacity.at("capacity-io-100").at("loop");
    CHECK(capacity_cell(loop.result) == "≥ 3,200 req/s (generator-bound: a lower bound)");

    // Both arms passed the bracket's 100 ... 1,600 req/s; 1,600 is the highest rate they share.
    auto e = common_rate_efficiency(s->capacity.at("capacity-io-100"));
    REQUIRE(e);
    CHECK(e->rate == 1600);
    CHECK(e->cpu_micros.at("pool") == Approx(60));
    CHECK(e->cpu_micros.at("loop") == Approx(20));

    auto chart = capacity_chart_data(*s, "capacity-io-100");
    CHECK(chart["kind"] == "capacity");
    REQUIRE(chart["arms"].size() == 2);
    CHECK(chart["bounds"][0]["millis"] == 250);
    CHECK(chart["arms"][1]["lower_bound"] == true);
    // One point per offered rate, in rate order, where the search repeats rates near its boundary.
    std::set<long long> rates;
    for (const auto& st : pool.result.steps)
        rates.insert(std::llround(st.offered_rps));
    REQUIRE(rates.size() < pool.result.steps.size());
    const auto& drawn = chart["arms"][0];
    REQUIRE(drawn["offered_rps"].size() == rates.size());
    CHECK(drawn["achieved_rps"].size() == rates.size());
    CHECK(drawn["p99_range"].size() == rates.size());
    CHECK(std::is_sorted(drawn["offered_rps"].begin(), drawn["offered_rps"].end()));
    std::size_t steps_drawn = 0;
    for (const auto& n : drawn["steps"])
        steps_drawn += n.get<std::size_t>();
    CHECK(steps_drawn == pool.result.steps.size());

    // The start times are the searches' first steps: the page says so and how much followed.
    auto steps = pool.result.steps.size() + loop.result.steps.size();
    CHECK(capacity_steps_text(*s) == "the times of each capacity search's first step; " + std::to_string(steps) +
                                         " step(s) in all followed, about " +
                                         load::format_duration(std::chrono::seconds(4 * pool.result.steps.size())) +
                                         " of warm-up and load");

    report_paths rp;
    auto page = suite_markdown(*s, rp);
    CHECK(page.find("## Capacity") != std::string::npos);
    CHECK(page.find("capacity-capacity-io-100.svg") != std::string::npos);
    CHECK(page.find("≥ 3,200 req/s (generator-bound: a lower bound)") != std::string::npos);
    CHECK(page.find("60 µs") != std::string::npos);
    CHECK(page.find("## Per scenario") == std::string::npos);  // no fixed-rate scenario ran

    auto readme = headline_block({*s}, rp);
    CHECK(readme.find("Capacity: the highest open-loop rate") != std::string::npos);
    CHECK(readme.find("capacity-io-100") != std::string::npos);
}

TEST_CASE("no common passing rate gives no efficiency figure", "[report][capacity]")
{
    std::map<std::string, load::capacity_record> arms;
    arms["pool"] = search("pool", 1960, 60);
    auto never = search("fiber", 0.5, 10);
    arms["fiber"] = never;
    CHECK_FALSE(common_rate_efficiency(arms));
    CHECK_FALSE(common_rate_efficiency({}));
}

TEST_CASE("capacity results are read whatever their folder and files are called, and the index counts them",
          "[report][capacity]")
{
    // The user review of 2026-12-03, item 2: only a folder named `capacity` was read.
    temp_dir dir;
    // bench-load --capacity --out runs/cap/fiber.csv writes fiber-capacity.csv and fiber-capacity-steps.csv.
    auto cap = dir.path / "runs" / "cap";
    std::filesystem::create_directories(cap);
    REQUIRE(load::write_capacity(search("fiber", 1960, 40), load::capacity_paths_for(cap / "fiber.csv")).ok());
    // bench-suite --suite capacity --out runs/capsuite writes capacity-capacity.csv into a folder of another name.
    auto capsuite = dir.path / "runs" / "capsuite";
    std::filesystem::create_directories(capsuite);
    REQUIRE(load::write_capacity(search("pool", 1960, 60), load::capacity_paths_for(capsuite / "capacity.csv")).ok());

    CHECK(results_stem(cap) == "fiber");
    CHECK(results_stem(capsuite) == "capacity");
    CHECK(suite_dirs(dir.path / "runs") == std::vector<std::filesystem::path>{cap, capsuite});
    CHECK(suite_dirs(cap) == std::vector<std::filesystem::path>{cap});
    std::vector<suite_data> suites;
    for (const auto& folder : {cap, capsuite}) {
        auto s = read_suite(folder);
        REQUIRE(s.ok());
        CHECK(s->capacity_scenarios == std::vector<std::string>{"capacity-io-100"});
        CHECK(raw_results_file(*s) == s->stem + "-capacity.csv");
        suites.push_back(std::move(*s));
    }
    CHECK(suites[0].name == "cap");
    CHECK(suites[1].name == "capsuite");
    CHECK(!capacity_chart_data(suites[0], "capacity-io-100")["arms"].empty());

    auto index = index_html(suites, report_paths{});
    CHECK(index.find("capsuite</a>: 1 scenario(s), 1 with a capacity search") != std::string::npos);
    CHECK(index.find("0 scenario(s)") == std::string::npos);
    // The answer before the list of suites (user review: the headline sat 2,900 px down).
    CHECK(index.find("Headline") < index.find("capsuite</a>"));
}

TEST_CASE("the capacity chart draws every arm against the offered rate, and the rates near the capacities apart",
          "[report][capacity][charts]")
{
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0) {
        WARN("python3-matplotlib not available: charts not drawn");
        return;
    }
    temp_dir dir;
    auto suite_dir = two_arm_suite(dir.path);
    auto s = read_suite(suite_dir);
    REQUIRE(s.ok());
    nlohmann::json jobs = nlohmann::json::array();
    jobs.push_back(
        {{"svg", (dir.path / "c.svg").string()}, {"name", "c"}, {"data", capacity_chart_data(*s, "capacity-io-100")}});
    {
        std::ofstream out(dir.path / "jobs.json");
        out << jobs.dump();
    }
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    auto rc = run_command({"/usr/bin/python3", script.string(), (dir.path / "jobs.json").string(), "--manifest",
                           (dir.path / "manifest.json").string()});
    REQUIRE(rc);
    REQUIRE(*rc == 0);
    std::ifstream in(dir.path / "manifest.json");
    std::stringstream text;
    text << in.rdbuf();
    auto manifest = nlohmann::json::parse(text.str());
    REQUIRE(manifest.size() == 1);
    REQUIRE(manifest[0]["panels"].size() == 2);  // every rate searched; near the capacities
    for (const auto& panel : manifest[0]["panels"]) {
        INFO(panel["title"].get<std::string>());
        CHECK(panel["points"].get<int>() > 0);
    }
}
