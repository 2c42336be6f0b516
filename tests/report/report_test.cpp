#include "execbench/report/report.hpp"

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace execbench;
using namespace execbench::report;

namespace {

using execbench::test_support::temp_dir;

void write(const std::filesystem::path& p, const std::string& text)
{
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p);
    out << text;
}

std::string read(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A suite folder as bench-suite writes it: pool ok, fiber with request errors, loop not run.
std::filesystem::path fake_suite(const std::filesystem::path& root)
{
    auto dir = root / "s";
    std::filesystem::create_directories(dir);
    auto ledger = load::ledger_path(dir, "s");
    REQUIRE(load::append_ledger(ledger, {"s", "io", "pool", load::run_status::ok, "r1", "2026-01-01T00:00:00Z", 3, "", ""}));
    REQUIRE(load::append_ledger(ledger, {"s", "io", "fiber", load::run_status::errors, "r2", "2026-01-01T00:00:05Z", 3,
                                         "errors_reset=2", ""}));
    REQUIRE(load::append_ledger(ledger, {"s", "io", "loop", load::run_status::not_run, "", "2026-01-01T00:00:09Z", 0,
                                         "not run: the open-file limit (RLIMIT_NOFILE) is 20000", ""}));
    write(dir / "s.csv",
          "scenario,model,run_id,trials,requests_ok,requests_error,errors_reset,requests_per_second,"
          "latency_millis_p50,latency_millis_p99,server_rss_mb_max,shape,requests,connections,noisy,noisy_metrics\n"
          "io,pool,r1,3,600,0,0,1500.4,400,1201,12.5,burst,600,600,0,\n"
          "io,fiber,r2,3,598,2,2,1900,300,720,10.1,burst,600,600,1,wall_millis\n");
    write(dir / "s-trials.csv",
          "run_id,scenario,model,trial,latency_millis_p99\n"
          "r1,io,pool,1,1300\nr1,io,pool,2,1201\nr1,io,pool,3,1100\n"
          "r2,io,fiber,1,700\nr2,io,fiber,2,720\nr2,io,fiber,3,900\n");
    write(dir / "s-timeline.csv",
          "run_id,scenario,model,trial,second,requests_ok,requests_error,latency_millis_p50,latency_millis_p90,"
          "latency_millis_p99\n"
          "r1,io,pool,2,0,600,0,400,900,1201\nr1,io,pool,1,0,1,0,1,1,1\nr2,io,fiber,2,0,598,2,300,600,720\n");
    write(load::server_timeline_path(dir, "s"),
          "run_id,scenario,model,trial,second,server_cpu_percent,server_rss_mb,server_threads\n"
          "r1,io,pool,2,0,55.5,12.5,201\nr2,io,fiber,2,0,40,10.1,3\n");
    write(dir / "s-context.jsonl",
          R"({"run_id":"r1","started_at":"2026-01-01T00:00:00Z","execbench":{"version":"0.1.0","git_revision":"abc","build_type":"Release","compiler":"GCC 12"},"machine":{"cpu_model":"Test CPU","cpu_count":2,"kernel":"6.1"},"scenario":{"name":"io","description":"600 at once","server":{"downstream":"self","downstream_model":"loop","options":{}}},"load_settings":{"threads":1}})"
          "\n");
    return dir;
}

bool have_matplotlib()
{
    return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("a suite folder is read with its latest runs and the median trial for charts", "[report]")
{
    temp_dir d("execbench-report-test");
    auto dir = fake_suite(d.path / "results");
    CHECK(suite_dirs(d.path / "results") == std::vector<std::filesystem::path>{dir});
    auto s = read_suite(dir);
    REQUIRE(s);
    CHECK(s->name == "s");
    CHECK(s->scenarios == std::vector<std::string>{"io"});
    CHECK(s->models == std::vector<std::string>{"pool", "fiber", "loop"});
    const auto& pool = s->runs["io"]["pool"];
    CHECK(pool.ran());
    CHECK(pool.chart_trial == 2);
    REQUIRE(pool.timeline.size() == 1);
    CHECK(pool.timeline[0].at("latency_millis_p99") == Approx(1201));
    REQUIRE(pool.server_timeline.size() == 1);
    CHECK(pool.server_timeline[0].at("server_cpu_percent") == Approx(55.5));
    CHECK_FALSE(s->runs["io"]["loop"].ran());
    CHECK(s->descriptions["io"] == "600 at once");
}

TEST_CASE("the suite page shows the models side by side with statuses and winners", "[report]")
{
    temp_dir d("execbench-report-test");
    auto s = read_suite(fake_suite(d.path / "results"));
    REQUIRE(s);
    auto md = suite_markdown(*s, report_paths{});
    CHECK_THAT(md, Catch::Contains("| status | ok | **request errors** | not run |"));
    CHECK_THAT(md, Catch::Contains("| latency p99 (ms) | 1201 | 720 | – |"));
    CHECK_THAT(md, Catch::Contains("| machine | Test CPU (2 CPUs) |"));
    CHECK_THAT(md, Catch::Contains("- loop: not run: the open-file limit"));
    CHECK_THAT(md, Catch::Contains("**yes** (wall_millis)"));
    // fiber is faster but had request errors, so pool wins latency.
    CHECK_THAT(md, Catch::Contains("| latency p99 ↓ | pool |"));
    CHECK_THAT(md, Catch::Contains("![io](s/io.png)"));
}

TEST_CASE("the README headline replaces only the text between its markers", "[report]")
{
    CHECK(replace_headline("# Title\n\nProse.\n", "\nT\n") ==
          "# Title\n\nProse.\n\n<!-- results:begin -->\nT\n<!-- results:end -->\n");
    std::string readme = "A\n<!-- results:begin -->\nold\n<!-- results:end -->\nB\n";
    CHECK(replace_headline(readme, "\nnew\n") == "A\n<!-- results:begin -->\nnew\n<!-- results:end -->\nB\n");
    CHECK(replace_headline(replace_headline(readme, "\nnew\n"), "\nnew\n") ==
          replace_headline(readme, "\nnew\n"));
}

TEST_CASE("regeneration makes the report current and --check sees results change", "[report]")
{
    temp_dir d("execbench-report-test");
    auto dir = fake_suite(d.path / "results");
    report_paths paths;
    paths.docs_dir = d.path / "docs";
    paths.headline_suites = {"s"};
    auto readme = d.path / "README.md";
    write(readme, "# execbench\n");
    auto build = [&] {
        auto s = read_suite(dir);
        REQUIRE(s);
        return build_report({*s}, paths);
    };

    auto out = build();
    CHECK_FALSE(stale_files(out, readme).empty());
    REQUIRE(write_report(out, readme, {}, ""));  // pages only
    auto stale = stale_files(out, readme);
    // Without drawing, the charts and their list are still missing.
    REQUIRE(stale.size() == 3);
    CHECK_THAT(read(readme), Catch::Contains("| [s](docs/results/s.md) | io | 1201 ms · 1,500 | 720 ms · 1,900 · "
                                             "**2 errors** | not run |"));

    if (!have_matplotlib()) {
        WARN("python3-matplotlib not available: charts not drawn");
        return;
    }
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(stale_files(out, readme).empty());
    // Drawing the same data again gives the same bytes.
    auto png = paths.docs_dir / "s" / "io.png";
    auto first = read(png);
    std::filesystem::remove(png);
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(read(png) == first);

    // New results: the page, the chart list and the headline are stale until regenerated.
    REQUIRE(load::append_ledger(load::ledger_path(dir, "s"),
                                {"s", "io", "pool", load::run_status::failed, "", "2026-01-02T00:00:00Z", 1, "boom", ""}));
    auto newer = build();
    auto now_stale = stale_files(newer, readme);
    CHECK(now_stale.size() >= 2);
    REQUIRE(write_report(newer, readme, script, "/usr/bin/python3"));
    CHECK(stale_files(newer, readme).empty());
}
