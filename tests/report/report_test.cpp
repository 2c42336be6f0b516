#include "execbench/report/report.hpp"

#include "execbench/core/run_command.hpp"
#include "execbench/report/word/suite_page.hpp"
#include "execbench/stats/histogram.hpp"
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

/// A serialized histogram of `micros`, as the histograms file holds it.
std::string histogram_text(std::initializer_list<std::int64_t> micros)
{
    stats::histogram h;
    for (auto v : micros)
        h.record(v);
    return h.serialize();
}

/// A suite folder as bench-suite writes it: pool ok, fiber with request errors, loop not run.
std::filesystem::path fake_suite(const std::filesystem::path& root, const std::string& name = "s")
{
    auto dir = root / name;
    std::filesystem::create_directories(dir);
    auto ledger = load::ledger_path(dir, name);
    REQUIRE(load::append_ledger(ledger,
                                {"s", "io", "pool", load::run_status::ok, "r1", "2026-01-01T00:00:00Z", 3, "", ""}));
    REQUIRE(load::append_ledger(
        ledger, {"s", "io", "fiber", load::run_status::errors, "r2", "2026-01-01T00:00:05Z", 3,
                 "errors_reset=2; bench-server exited with status 1 after SIGTERM; round 2: timed out; bench-server "
                 "exited with status 1 after SIGTERM",
                 ""}));
    REQUIRE(load::append_ledger(ledger, {"s", "io", "loop", load::run_status::not_run, "", "2026-01-01T00:00:09Z", 0,
                                         "not run: the open-file limit (RLIMIT_NOFILE) is 20000", ""}));
    write(dir / (name + ".csv"),
          "scenario,model,run_id,trials,requests_ok,requests_error,errors_reset,requests_per_second,wall_millis,"
          "latency_millis_p50,latency_millis_p99,latency_millis_max,server_rss_mb_max,shape,requests,connections,"
          "noisy,noisy_metrics\n"
          "io,pool,r1,3,600,0,0,1500.4,400,400,1201,1300,12.5,burst,600,600,0,\n"
          "io,fiber,r2,3,598,2,2,1900,315,300,720,800,10.1,burst,600,600,1,wall_millis\n");
    write(dir / (name + "-histograms.txt"), "# execbench histograms v1\n"
                                            "r1\tio\tpool\t1\tlatency\t" +
                                                histogram_text({400'000, 900'000, 1'201'000}) + "\n" +
                                                "r1\tio\tpool\t2\tlatency\t" + histogram_text({410'000, 1'300'000}) +
                                                "\n" + "r2\tio\tfiber\t1\tlatency\t" +
                                                histogram_text({300'000, 720'000}) + "\n");
    if (name != "s")
        for (const auto* f : {"-trials.csv", "-timeline.csv", "-server-timeline.csv", "-context.jsonl"})
            std::filesystem::copy_file(root / "s" / ("s" + std::string(f)), dir / (name + f),
                                       std::filesystem::copy_options::overwrite_existing);
    if (name != "s")
        return dir;
    write(dir / "s-trials.csv", "run_id,scenario,model,trial,latency_millis_p99,requests_error\n"
                                "r1,io,pool,1,1300,0\nr1,io,pool,2,1201,0\nr1,io,pool,3,1100,0\n"
                                "r2,io,fiber,1,700,0\nr2,io,fiber,2,720,2\nr2,io,fiber,3,900,2\n");
    write(dir / "s-timeline.csv",
          "run_id,scenario,model,trial,second,requests_ok,requests_error,latency_millis_p50,latency_millis_p90,"
          "latency_millis_p99\n"
          "r1,io,pool,2,0,600,0,400,900,1201\nr1,io,pool,1,0,1,0,1,1,1\nr2,io,fiber,2,0,598,2,300,600,720\n");
    write(load::server_timeline_path(dir, "s"),
          "run_id,scenario,model,trial,second,server_cpu_percent,server_rss_mb,server_threads\n"
          "r1,io,pool,2,0,55.5,12.5,201\nr2,io,fiber,2,0,40,10.1,3\n");
    write(
        dir / "s-context.jsonl",
        R"({"run_id":"r1","started_at":"2026-01-01T00:00:00Z","execbench":{"version":"0.1.0","git_revision":"abc","build_type":"Release","compiler":"GCC 12"},"machine":{"cpu_model":"Test CPU","cpu_count":2,"kernel":"6.1"},"scenario":{"name":"io","description":"600 at once","server":{"downstream":"self","downstream_model":"loop","options":{}}},"load_settings":{"threads":1,"url":"http://127.0.0.1:4000"}})"
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
        write(scenarios / "io.json", R"({"description": "600 at once", "requests": [{"path": "/io"}],
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
    REQUIRE(stale.size() == 5);  // two chart lists, io's, the summary's and the winners' SVG: one file per chart
    CHECK_THAT(read(readme), Catch::Contains("| [s](docs/results/s.md) | io | 1,201 ms · wall 400 ms | ~720 ms · wall "
                                             "315 ms · **2 errors** | not run | pool (failures over 0.1 % of requests: "
                                             "fiber up to 2 errors in 2 of 3 trials) |"));
    CHECK_THAT(read(readme), Catch::Contains("| p99 verdict (95 % interval) |"));

    if (!have_matplotlib()) {
        WARN("python3-matplotlib not available: charts not drawn");
        return;
    }
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(stale_files(out, readme).empty());
    // Drawing the same data again gives the same bytes.
    auto svg = paths.docs_dir / "s" / "io.svg";
    auto first = read(svg);
    std::filesystem::remove(svg);
    REQUIRE(write_report(out, readme, script, "/usr/bin/python3"));
    CHECK(read(svg) == first);
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
    v.summary = {{"requests_ok", "0"}, {"latency_millis_p99", "0"}};
    CHECK(latency(v, "latency_millis_p99") == "–");
    v.summary["requests_ok"] = "3";
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
    write(readme, "# x\n");
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
    auto text = read(readme);
    CHECK_THAT(text, Catch::Contains("| [s](docs/results/s.md) | io |"));
    CHECK_THAT(text, Catch::Contains("| [t](docs/results/t.md) | io |"));
}

TEST_CASE("bench-report exits 2 and writes nothing on missing results, an unknown suite or a failed chart", "[report]")
{
    temp_dir d("execbench-report-test");
    auto readme = d.path / "README.md";
    write(readme, "# untouched\n");
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
    write(failing, "import sys\nsys.exit(3)\n");
    CHECK(run({"--results", (d.path / "results").string(), "--charts-script", failing.string()}) == 2);
    CHECK(read(readme) == "# untouched\n");
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
    write(target, "# target\n");
    auto link = d.path / "link.md";
    std::filesystem::create_symlink("real/target.md", link);
    REQUIRE(run({"--readme", link.string()}) == 0);
    CHECK(std::filesystem::is_symlink(link));
    CHECK_THAT(read(target), Catch::StartsWith("# target\n") && Catch::Contains("| [s]("));
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
    auto before = read(target);
    REQUIRE(run({"--no-readme"}) == 0);
    CHECK(std::filesystem::exists(docs / "s.md"));
    CHECK(read(target) == before);
    CHECK(run({"--no-readme", "--check"}) == 1);  // the charts were not drawn, the README is not looked at
    CHECK(run({"--no-readme", "--readme", link.string()}) == 2);
}

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
        v.summary["shape"] = "closed";
        v.summary["wall_millis"] = "5000";
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
        jobs.push_back({{"svg", (d.path / (name + ".svg")).string()},
                        {"name", name},
                        {"data", std::move(data)}});
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
    write(jobs_file, jobs.dump());
    auto manifest_file = d.path / "manifest.json";
    auto script = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "src" / "report" / "charts.py";
    auto rc =
        run_command({"/usr/bin/python3", script.string(), jobs_file.string(), "--manifest", manifest_file.string()});
    REQUIRE(rc);
    REQUIRE(*rc == 0);
    auto manifest = nlohmann::json::parse(read(manifest_file));
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
    write(readme, "# repository\n");
    auto in_repo = [&](const std::string& args) {
        auto out = d.path / "out.txt";
        auto rc = run_command(
            {"/bin/sh", "-c", "cd '" + repo.string() + "' && exec '" + EXECBENCH_BENCH_REPORT_PATH + "' " + args},
            {out, d.path / "err.txt"});
        REQUIRE(rc);
        return std::pair{*rc, read(out)};
    };

    auto [scratch_rc, scratch_out] = in_repo("--results runs/a --docs runs/a-docs --no-charts");
    CHECK(scratch_rc == 0);
    CHECK(std::filesystem::exists(repo / "runs" / "a-docs" / "a.md"));
    CHECK(read(readme) == "# repository\n");
    CHECK_THAT(scratch_out, Catch::Contains("no headline written") && Catch::Contains("--readme FILE"));
    // Nor when only the pages go elsewhere: the headline's links would point into the scratch folder.
    auto [docs_rc, docs_out] = in_repo("--docs runs/docs --no-charts");
    CHECK(docs_rc == 0);
    CHECK(read(readme) == "# repository\n");
    CHECK_THAT(docs_out, Catch::Contains("no headline written"));

    // Named with --readme, the file gets the headline; so does README.md for the repository's own results.
    auto [named_rc, named_out] =
        in_repo("--results runs/a --docs runs/a-docs --no-charts --readme runs/a-docs/README.md");
    CHECK(named_rc == 0);
    CHECK_THAT(read(repo / "runs" / "a-docs" / "README.md"), Catch::Contains("| [a]("));
    CHECK_THAT(named_out, Catch::Contains("headline in runs/a-docs/README.md"));
    CHECK(read(readme) == "# repository\n");
    auto [own_rc, own_out] = in_repo("--results results/ --no-charts --headline-suites s");
    CHECK(own_rc == 0);
    CHECK_THAT(read(readme), Catch::StartsWith("# repository\n") && Catch::Contains("| [s](docs/results/s.md)"));
    CHECK_THAT(own_out, Catch::Contains("headline in README.md"));
}
