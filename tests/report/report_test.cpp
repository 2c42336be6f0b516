#include "execbench/report/report.hpp"

#include "execbench/core/run_command.hpp"
#include "execbench/report/suite_page/suite_page.hpp"
#include "execbench/stats/histogram.hpp"
#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace execbench;
using namespace execbench::report;

using namespace execbench::test_support;

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
    CHECK_THAT(md, Catch::Contains("| latency p99 (ms) | 1,201 | 720 | – |"));
    CHECK_THAT(md, Catch::Contains("| machine | Test CPU (2 CPUs) |"));
    CHECK_THAT(md, Catch::Contains("| sharing | server and load generator on one machine |"));
    CHECK_THAT(md, Catch::Contains("| pinning | not recorded |"));
    CHECK_THAT(md, Catch::Contains("[`s.csv`](../../results/s/s.csv)"));
    CHECK_THAT(md, Catch::Contains("[methodology](../methodology.md)"));
    CHECK_THAT(md, Catch::Contains("- loop: not run: the open-file limit"));
    // The ledger's errors_reset=2 in words, and a note each server run repeated once with its count.
    CHECK_THAT(md,
               Catch::Contains("- fiber: 2 reset errors; bench-server exited with status 1 after SIGTERM (2 times); "
                               "round 2: timed out\n"));
    CHECK_THAT(md, Catch::Contains("**yes** (wall_millis)"));
    // fiber is faster but had request errors, so pool wins latency.
    CHECK_THAT(md, Catch::Contains("| latency p99 | pool above fiber (fiber: up to 2 errors in 2 of 3 trials, over "
                                   "0.1 % of its requests; pool / fiber 1.67× ("));
    CHECK_THAT(md, Catch::Contains("| latency p99 ↓ | pool (by failures) |"));
    CHECK_THAT(md, Catch::Contains("- io: fiber up to 2 errors in 2 of 3 trials\n"));
    CHECK_THAT(md, Catch::Contains("![io](s/io.svg)"));
}

TEST_CASE("runs that differ from their scenario files say which way", "[report]")
{
    temp_dir d("execbench-report-test");
    auto s = read_suite(fake_suite(d.path / "results"));
    REQUIRE(s);
    auto scenarios = d.path / "scenarios";
    std::filesystem::create_directories(scenarios);
    auto file_with = [&](int trials) {
        write_file(scenarios / "io.json", R"({"description": "600 at once", "requests": [{"path": "/io"}],
            "load": {"shape": "burst", "requests": 600, "connections": 600}, "trials": )" +
                                              std::to_string(trials) + "}");
        auto copy = *s;
        add_scenario_files(copy, scenarios);
        return copy;
    };
    // The runs had 3 trials (the warm-up is not recorded in this fake, so it says nothing either way).
    auto longer = file_with(2);
    REQUIRE(longer.file_change.count("io"));
    CHECK(longer.file_change.at("io") == settings_change::longer);
    report_paths paths;
    paths.headline_suites = {"s"};
    auto block = headline_block({longer}, paths);
    CHECK_THAT(block, Catch::Contains("Runs differ in length from their scenario files (bench-suite overrides) in: s "
                                      "(longer)"));
    CHECK_THAT(block, !Catch::Contains("shorter"));
    CHECK_THAT(suite_markdown(longer, paths), Catch::Contains("trial(s)** (ran longer)"));
    CHECK(file_with(5).file_change.at("io") == settings_change::shorter);
}

TEST_CASE("the README headline replaces only the text between its markers", "[report]")
{
    CHECK(replace_headline("# Title\n\nProse.\n", "\nT\n") ==
          "# Title\n\nProse.\n\n<!-- results:begin -->\nT\n<!-- results:end -->\n");
    std::string readme = "A\n<!-- results:begin -->\nold\n<!-- results:end -->\nB\n";
    CHECK(replace_headline(readme, "\nnew\n") == "A\n<!-- results:begin -->\nnew\n<!-- results:end -->\nB\n");
    CHECK(replace_headline(replace_headline(readme, "\nnew\n"), "\nnew\n") == replace_headline(readme, "\nnew\n"));
}

TEST_CASE("regeneration makes the report current and --check sees results change", "[report]")
{
    temp_dir d("execbench-report-test");
    auto dir = fake_suite(d.path / "results");
    report_paths paths;
    paths.docs_dir = d.path / "docs";
    paths.headline_suites = {"s"};
    auto readme = d.path / "README.md";
    write_file(readme, "# execbench\n");
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
    REQUIRE(stale.size() == 5);  // two chart lists, io's, the summary's and the winners' SVG: one file per chart
    CHECK_THAT(read_back(readme),
               Catch::Contains("| [s](docs/results/s.md) | io | 1,201 ms · wall 400 ms | ~720 ms · wall "
                               "315 ms · **2 errors** | not run | pool (failures over 0.1 % of requests: "
                               "fiber up to 2 errors in 2 of 3 trials) |"));
    CHECK_THAT(read_back(readme), Catch::Contains("| p99 verdict (95 % interval) |"));

    if (!have_matplotlib()) {
        WARN("python3-matplotlib not available: charts not drawn");
        return;
    }
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(stale_files(out, readme).empty());
    // Drawing the same data again gives the same bytes.
    auto svg = paths.docs_dir / "s" / "io.svg";
    auto first = read_back(svg);
    std::filesystem::remove(svg);
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(read_back(svg) == first);
    CHECK_FALSE(std::filesystem::exists(paths.docs_dir / "s" / "io.png"));  // no second picture of the same chart

    // New results: the page, the chart list and the headline are stale until regenerated.
    REQUIRE(load::append_ledger(load::ledger_path(dir, "s"), {"s", "io", "pool", load::run_status::failed, "",
                                                              "2026-01-02T00:00:00Z", 1, "boom", ""}));
    auto newer = build();
    auto now_stale = stale_files(newer, readme);
    CHECK(now_stale.size() >= 2);
    REQUIRE(write_report(newer, readme, script, "/usr/bin/python3"));
    CHECK(stale_files(newer, readme).empty());
}

TEST_CASE("the merged distribution of all trials bounds every percentile by the max", "[report]")
{
    temp_dir d("execbench-report-test");
    auto s = read_suite(fake_suite(d.path / "results"));
    REQUIRE(s);
    const auto& spectrum = s->runs["io"]["pool"].latency_spectrum;
    REQUIRE_FALSE(spectrum.empty());
    CHECK(spectrum.front().second == Approx(400).epsilon(0.01));
    CHECK(spectrum.back().first == 100);
    CHECK(spectrum.back().second == Approx(1300).epsilon(0.001));
    for (const auto& [p, ms] : spectrum)
        CHECK(ms <= spectrum.back().second);
}

TEST_CASE("counts are whole numbers rounded half to even, and no success shows no latency", "[report]")
{
    CHECK(count(8410.5) == "8,410");
    CHECK(count(191589.5) == "191,590");
    CHECK(count(0.5) == "0");
    CHECK(millis(19903.2) == "19,903");
    // Precision by the printed size: a value that rounds up to the next size is printed as that size.
    CHECK(millis(99.97) == "100");
    CHECK(millis(99.94) == "99.9");
    CHECK(millis(9.996) == "10.0");
    CHECK(millis(999.7) == "1,000");
    run_view v;
    v.take_summary({{"requests_ok", "0"}, {"latency_millis_p99", "0"}});
    CHECK(latency(v, "latency_millis_p99") == "–");
    v.set_cell("requests_ok", "3");
    CHECK(latency(v, "latency_millis_p99") == "0.00");
}

TEST_CASE("a results folder named by the user is read, given as the root or inside one", "[report]")
{
    temp_dir d("execbench-report-test");
    fake_suite(d.path / "r");
    auto dir = fake_suite(d.path / "r", "adhoc");
    auto renamed = d.path / "execbench-io-600";
    std::filesystem::rename(dir, renamed);
    CHECK(results_stem(renamed) == "adhoc");
    CHECK(suite_dirs(renamed) == std::vector<std::filesystem::path>{renamed});
    CHECK(suite_dirs(d.path) == std::vector<std::filesystem::path>{renamed});
    auto s = read_suite(renamed);
    REQUIRE(s);
    CHECK(s->name == "execbench-io-600");
    CHECK(s->runs["io"]["pool"].ran());
}

namespace {

/// Runs bench-report with `args`; its exit status.
int bench_report(std::vector<std::string> args)
{
    args.insert(args.begin(), EXECBENCH_BENCH_REPORT_PATH);
    auto rc = run_command(args);
    REQUIRE(rc);
    return *rc;
}

}  // namespace

TEST_CASE("bench-report --suite writes only that page, and the headline keeps every suite", "[report]")
{
    temp_dir d("execbench-report-test");
    fake_suite(d.path / "results", "s");
    fake_suite(d.path / "results", "t");
    auto readme = d.path / "README.md";
    write_file(readme, "# x\n");
    auto common = std::vector<std::string>{"--results",   (d.path / "results").string(),
                                           "--docs",      (d.path / "docs" / "results").string(),
                                           "--readme",    readme.string(),
                                           "--no-charts", "--headline-suites",
                                           "s,t"};
    auto args = common;
    args.insert(args.end(), {"--suite", "t"});
    REQUIRE(bench_report(args) == 0);
    CHECK(std::filesystem::exists(d.path / "docs" / "results" / "t.md"));
    CHECK_FALSE(std::filesystem::exists(d.path / "docs" / "results" / "s.md"));
    auto text = read_back(readme);
    CHECK_THAT(text, Catch::Contains("| [s](docs/results/s.md) | io |"));
    CHECK_THAT(text, Catch::Contains("| [t](docs/results/t.md) | io |"));
}

TEST_CASE("bench-report exits 2 and writes nothing on missing results, an unknown suite or a failed chart", "[report]")
{
    temp_dir d("execbench-report-test");
    auto readme = d.path / "README.md";
    write_file(readme, "# untouched\n");
    auto docs = d.path / "docs";
    auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> args{"--docs", docs.string(), "--readme", readme.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return bench_report(args);
    };
    CHECK(run({"--results", (d.path / "nonexistent").string(), "--no-charts"}) == 2);
    std::filesystem::create_directories(d.path / "empty");
    CHECK(run({"--results", (d.path / "empty").string(), "--no-charts"}) == 2);
    fake_suite(d.path / "results");
    CHECK(run({"--results", (d.path / "results").string(), "--suite", "nosuch", "--no-charts"}) == 2);
    auto failing = d.path / "failing.py";
    write_file(failing, "import sys\nsys.exit(3)\n");
    CHECK(run({"--results", (d.path / "results").string(), "--charts-script", failing.string()}) == 2);
    CHECK(read_back(readme) == "# untouched\n");
    CHECK_FALSE(std::filesystem::exists(docs));
}

TEST_CASE("bench-report writes the README through a symlink, refuses what is not a regular file, and --no-readme "
          "leaves it alone",
          "[report]")
{
    // Issue 23 §3: --readme /dev/null turned the device into a regular file, and a symlinked README into a copy.
    temp_dir d("execbench-report-test");
    fake_suite(d.path / "results");
    auto docs = d.path / "docs";
    auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> args{"--results", (d.path / "results").string(), "--docs", docs.string(),
                                      "--no-charts", "--headline-suites", "s"};
        args.insert(args.end(), extra.begin(), extra.end());
        return bench_report(args);
    };
    auto target = d.path / "real" / "target.md";
    write_file(target, "# target\n");
    auto link = d.path / "link.md";
    std::filesystem::create_symlink("real/target.md", link);
    REQUIRE(run({"--readme", link.string()}) == 0);
    CHECK(std::filesystem::is_symlink(link));
    CHECK_THAT(read_back(target), Catch::StartsWith("# target\n") && Catch::Contains("| [s]("));
    CHECK_FALSE(std::filesystem::exists(d.path / "real" / "target.md.tmp"));

    // A FIFO stands in for /dev/null (a test must not risk the real device); reading it would block, so it must be
    // refused before anything reads or writes it. A directory, and a link to one, likewise.
    auto fifo = d.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::filesystem::create_directories(d.path / "dir");
    std::filesystem::create_symlink("dir", d.path / "dir-link");
    std::filesystem::remove_all(docs);
    for (const auto& bad : {fifo, d.path / "dir", d.path / "dir-link"}) {
        INFO(bad);
        CHECK(run({"--readme", bad.string()}) == 2);
        CHECK(run({"--readme", bad.string(), "--check"}) == 2);
        CHECK_FALSE(std::filesystem::exists(docs));
    }
    CHECK(std::filesystem::is_fifo(fifo));
    CHECK(std::filesystem::is_directory(d.path / "dir"));
    CHECK(std::filesystem::is_empty(d.path / "dir"));
    CHECK(std::filesystem::is_symlink(d.path / "dir-link"));

    // --no-readme writes the pages and no README (the default README.md of the working directory included).
    auto before = read_back(target);
    REQUIRE(run({"--no-readme"}) == 0);
    CHECK(std::filesystem::exists(docs / "s.md"));
    CHECK(read_back(target) == before);
    CHECK(run({"--no-readme", "--check"}) == 1);  // the charts were not drawn, the README is not looked at
    CHECK(run({"--no-readme", "--readme", link.string()}) == 2);
}

TEST_CASE("the machine line names each CPU clock, so runs on hosts sharing a model name are told apart", "[report]")
{
    auto context = [](double mhz) {
        return *load::parse_context(nlohmann::json{{"machine",
                                                    {{"cpu_model", "AMD EPYC"},
                                                     {"cpu_count", 2},
                                                     {"memory_mb", 24105},
                                                     {"cpu_mhz", mhz}}}}
                                        .dump());
    };
    CHECK(summarize_contexts({context(2596.128), context(2596.148)}).machine == "AMD EPYC (2 CPUs, 24 GiB, 2,596 MHz)");
    CHECK(summarize_contexts({context(2096.01), context(2596.128)}).machine ==
          "AMD EPYC (2 CPUs, 24 GiB, 2,096 MHz); AMD EPYC (2 CPUs, 24 GiB, 2,596 MHz)");
    CHECK(summarize_contexts({context(0)}).machine == "AMD EPYC (2 CPUs, 24 GiB)");  // not readable
}

TEST_CASE("bench-report writes the README's headline only when it reports the repository's own results", "[report]")
{
    // The user review of 2026-12-03, item 1: `--results runs/a --docs runs/a-docs` rewrote the README of the
    // working directory from a scratch run.
    temp_dir d("execbench-report-test");
    auto repo = d.path / "repo";
    fake_suite(repo / "results");
    fake_suite(repo / "runs");
    fake_suite(repo / "runs", "a");
    auto readme = repo / "README.md";
    write_file(readme, "# repository\n");
    auto in_repo = [&](const std::string& args) {
        auto out = d.path / "out.txt";
        auto rc = run_command(
            {"/bin/sh", "-c", "cd '" + repo.string() + "' && exec '" + EXECBENCH_BENCH_REPORT_PATH + "' " + args},
            {out, d.path / "err.txt"});
        REQUIRE(rc);
        return std::pair{*rc, read_back(out)};
    };

    auto [scratch_rc, scratch_out] = in_repo("--results runs/a --docs runs/a-docs --no-charts");
    CHECK(scratch_rc == 0);
    CHECK(std::filesystem::exists(repo / "runs" / "a-docs" / "a.md"));
    CHECK(read_back(readme) == "# repository\n");
    CHECK_THAT(scratch_out, Catch::Contains("no headline written") && Catch::Contains("--readme FILE"));
    // Nor when only the pages go elsewhere: the headline's links would point into the scratch folder.
    auto [docs_rc, docs_out] = in_repo("--docs runs/docs --no-charts");
    CHECK(docs_rc == 0);
    CHECK(read_back(readme) == "# repository\n");
    CHECK_THAT(docs_out, Catch::Contains("no headline written"));

    // Named with --readme, the file gets the headline; so does README.md for the repository's own results.
    auto [named_rc, named_out] =
        in_repo("--results runs/a --docs runs/a-docs --no-charts --readme runs/a-docs/README.md");
    CHECK(named_rc == 0);
    CHECK_THAT(read_back(repo / "runs" / "a-docs" / "README.md"), Catch::Contains("| [a]("));
    CHECK_THAT(named_out, Catch::Contains("headline in runs/a-docs/README.md"));
    CHECK(read_back(readme) == "# repository\n");
    auto [own_rc, own_out] = in_repo("--results results/ --no-charts --headline-suites s");
    CHECK(own_rc == 0);
    CHECK_THAT(read_back(readme), Catch::StartsWith("# repository\n") && Catch::Contains("| [s](docs/results/s.md)"));
    CHECK_THAT(own_out, Catch::Contains("headline in README.md"));
}
