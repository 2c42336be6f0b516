// Interval logs beyond one process (issue 13): bench-load --hlog against a real bench-server, read back by
// HdrHistogram's reference implementation (Java, Debian's libhdrhistogram-java) and merged by bench-report.
#include "execbench/load/results/hlog.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/report/read/merge.hpp"
#include "execbench/stats/interval_log.hpp"

#include "execbench/core/file.hpp"
#include "support/child_process.hpp"
#include "support/raw_client.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using namespace std::chrono_literals;

constexpr const char* java = "/usr/bin/java";
constexpr const char* hdrhistogram_jar = "/usr/share/java/hdrhistogram.jar";

/// Waits for a child to exit (bounded) and fails the test with its stderr when it did not exit with 0.
void require_success(child_process& child, const std::string& what)
{
    auto code = child.wait_exit(120s);
    INFO(what << " stderr: " << child.stderr_text());
    REQUIRE(code);
    REQUIRE(*code == 0);
}

/// bench-load at a constant rate against `port`, writing its results beside `out` and its interval log to `hlog`.
std::vector<std::string> load_argv(std::uint16_t port, const std::filesystem::path& out,
                                   const std::filesystem::path& hlog)
{
    return {bench_load_path(),
            "--url",
            "http://127.0.0.1:" + std::to_string(port) + "/io?delayInMillis=2",
            "--rate",
            "300",
            "--connections",
            "8",
            "--duration",
            "2s",
            "--warmup",
            "0s",
            "--trials",
            "1",
            "--quiet",
            "--out",
            out.string(),
            "--hlog",
            hlog.string()};
}

/// The one value of `column` in a single-row CSV.
double csv_value(const std::filesystem::path& file, const std::string& column)
{
    auto table = load::read_csv(file);
    REQUIRE(table);
    auto at = table->column(column);
    REQUIRE(at >= 0);
    REQUIRE(table->rows.size() == 1);
    return std::stod(table->rows.front()[static_cast<std::size_t>(at)]);
}

/// The tag bench-load gave the foreground latency: `<arm>/latency`, the arm being the server's model here.
std::string latency_tag(const std::filesystem::path& hlog)
{
    auto log = stats::parse_interval_log(read_file(hlog).value());
    REQUIRE(log);
    REQUIRE_FALSE(log->intervals.empty());
    return log->intervals.front().tag;
}

/// The /io requests the server on `port` answered with 200, from its /metrics.
std::uint64_t io_answered(std::uint16_t port)
{
    raw_client client(port);
    auto body = client.get("/metrics").body;
    const std::string sample = "execbench_requests_total{endpoint=\"io\",status=\"200\"} ";
    auto at = body.find(sample);
    if (at == std::string::npos)
        return 0;
    return std::stoull(body.substr(at + sample.size()));
}

}  // namespace

TEST_CASE("HdrHistogram's Java reader gets the percentiles our CSV reports from bench-load's interval log",
          "[hlog][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    if (!std::filesystem::exists(java) || !std::filesystem::exists(hdrhistogram_jar)) {
        // CI installs both (.ci/setup); EXECBENCH_REQUIRE_JAVA turns their absence into a failure there.
        if (std::getenv("EXECBENCH_REQUIRE_JAVA") != nullptr)
            FAIL("EXECBENCH_REQUIRE_JAVA is set but " << java << " or " << hdrhistogram_jar << " is missing");
        WARN("skipped: " << java << " or " << hdrhistogram_jar
                         << " missing (apt-get install default-jre-headless libhdrhistogram-java)");
        return;
    }
    temp_dir dir;
    server_process server({"--model=loop", "--threads", "1"});
    auto hlog = dir.path / "run.hlog";
    child_process run(load_argv(server.port(), dir.path / "run.csv", hlog));
    require_success(run, "bench-load");
    auto tag = latency_tag(hlog);
    CHECK(tag == "loop/latency");

    // HistogramLogProcessor adds the tag's intervals up; its last CSV row holds the totals.
    auto processed = dir.path / "java";
    child_process reader({java, "-cp", hdrhistogram_jar, "org.HdrHistogram.HistogramLogProcessor", "-i", hlog.string(),
                          "-tag", tag, "-csv", "-outputValueUnitRatio", "1000", "-o", processed.string()});
    require_success(reader, "HistogramLogProcessor");
    std::ifstream in(processed);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty() && line.front() != '#' && line.front() != '"')
            last = line;
    INFO("HistogramLogProcessor's last row: " << last);
    std::vector<std::string> fields;
    std::stringstream split(last);
    for (std::string f; std::getline(split, f, ',');)
        fields.push_back(f);
    // Timestamp, Int_Count, Int_50%, Int_90%, Int_Max, Total_Count, Total_50%, Total_90%, Total_99%, ...
    REQUIRE(fields.size() == 12);
    auto trials = load::output_paths_for(dir.path / "run.csv").trials;
    CHECK(std::stod(fields[5]) == csv_value(trials, "requests_ok"));
    CHECK(std::stod(fields[6]) == Approx(csv_value(trials, "latency_millis_p50")).margin(0.001));
    CHECK(std::stod(fields[7]) == Approx(csv_value(trials, "latency_millis_p90")).margin(0.001));
    CHECK(std::stod(fields[8]) == Approx(csv_value(trials, "latency_millis_p99")).margin(0.001));
    CHECK(std::stod(fields[9]) == Approx(csv_value(trials, "latency_millis_p999")).margin(0.001));
}

TEST_CASE("merging two generators' interval logs gives the histogram of all their requests",
          "[hlog][merge][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty() || bench_report_path().empty())
        return;
    temp_dir dir;
    server_process server({"--model=fiber", "--threads", "1"});
    // Two generator processes at once against one server, as two shards would run.
    child_process a(load_argv(server.port(), dir.path / "a.csv", dir.path / "a.hlog"));
    child_process b(load_argv(server.port(), dir.path / "b.csv", dir.path / "b.hlog"));
    require_success(a, "bench-load a");
    require_success(b, "bench-load b");

    // The union of their requests: the full-precision histograms each wrote beside its CSV.
    stats::histogram all;
    for (const char* name : {"a", "b"}) {
        auto csv = dir.path / (std::string(name) + ".csv");
        auto records = load::read_histograms(load::output_paths_for(csv).histograms);
        REQUIRE(records);
        for (const auto& rec : *records)
            if (rec.series == "latency")
                REQUIRE(all.merge(rec.histogram));
    }
    REQUIRE(all.count() > 0);

    report::merge_options options;
    options.logs = {dir.path / "a.hlog", dir.path / "b.hlog"};
    options.tag = latency_tag(dir.path / "a.hlog");
    auto merged = report::merge_logs(options);
    REQUIRE(merged);
    REQUIRE(merged->series.size() == 1);
    CHECK(merged->series.front().logs == 2);
    CHECK(merged->series.front().values.counts() == all.counts());
    for (double p : {50.0, 90.0, 99.0, 99.9, 100.0})
        CHECK(merged->series.front().values.value_at_percentile(p) == all.value_at_percentile(p));

    // The command line prints the same figures.
    child_process cli(
        {bench_report_path(), "merge", options.logs[0].string(), options.logs[1].string(), "--tag", *options.tag});
    std::string table;
    try {
        for (;;)
            table += cli.read_line(10s) + "\n";
    } catch (const std::runtime_error&) {
        // end of its output
    }
    require_success(cli, "bench-report merge");
    CHECK_THAT(table, Catch::Contains("| " + *options.tag + " | " + std::to_string(all.count()) + " |"));
}

TEST_CASE("bench-load --processes 2 is one run: the server answered what the merged results count",
          "[hlog][processes][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    temp_dir dir;
    server_process server({"--model=loop", "--threads", "1"});
    auto before = io_answered(server.port());
    auto argv = load_argv(server.port(), dir.path / "multi.csv", dir.path / "multi.hlog");
    *(std::find(argv.begin(), argv.end(), "--trials") + 1) = "2";
    argv.insert(argv.end(), {"--processes", "2", "--pause", "0s"});
    child_process multi(argv);
    require_success(multi, "bench-load --processes 2");
    auto answered = io_answered(server.port()) - before;

    auto paths = load::output_paths_for(dir.path / "multi.csv");
    auto trials = load::read_csv(paths.trials);
    REQUIRE(trials);
    REQUIRE(trials->rows.size() == 2);
    auto ok_at = trials->column("requests_ok");
    auto errors_at = trials->column("requests_error");
    REQUIRE(ok_at >= 0);
    std::uint64_t ok = 0;
    for (const auto& row : trials->rows) {
        ok += std::stoull(row[static_cast<std::size_t>(ok_at)]);
        CHECK(row[static_cast<std::size_t>(errors_at)] == "0");
    }
    // Both trials at 300 req/s for 2 s: the shards together sent the whole load, not one share of it.
    CHECK(ok == 1200);
    // Three processes each sent one pre-flight request: the parent and its two shards.
    CHECK(answered == ok + 3);

    // The merged interval log and the merged full-precision histograms hold the same requests, bucket for bucket.
    stats::histogram all;
    auto records = load::read_histograms(paths.histograms);
    REQUIRE(records);
    for (const auto& rec : *records)
        if (rec.series == "latency")
            REQUIRE(all.merge(rec.histogram));
    report::merge_options options;
    options.logs = {dir.path / "multi.hlog"};
    options.tag = "loop/latency";
    auto merged = report::merge_logs(options);
    REQUIRE(merged);
    REQUIRE(merged->series.size() == 1);
    CHECK(merged->series.front().values.count() == ok);
    CHECK(merged->series.front().values.counts() == all.counts());

    // The CSV row has the shape of a single-process run's.
    child_process single(load_argv(server.port(), dir.path / "single.csv", dir.path / "single.hlog"));
    require_success(single, "bench-load");
    auto single_trials = load::read_csv(load::output_paths_for(dir.path / "single.csv").trials);
    REQUIRE(single_trials);
    CHECK(single_trials->header == trials->header);
    auto summary = load::read_csv(dir.path / "multi.csv");
    auto single_summary = load::read_csv(dir.path / "single.csv");
    REQUIRE(summary);
    REQUIRE(single_summary);
    CHECK(summary->header == single_summary->header);
}
