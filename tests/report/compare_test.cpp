#include "execbench/report/compare.hpp"

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>

using namespace execbench::report;
using execbench::test_support::child_process;
using execbench::test_support::temp_dir;

namespace {

/// Per-trial figures of one run: p99 and req/s vary around the given medians by ±1 %.
struct fake_run {
    std::string scenario = "io-600";
    std::string arm = "loop";
    std::string run_id;
    double p99 = 100;
    double rps = 1000;
    unsigned trials = 5;
    double unsent = 0;
    std::string scale;  ///< "" = no scale column (older results)
};

/// Writes `<root>/<suite>/<suite>.csv` and `-trials.csv` as bench-suite would, with the columns compare reads.
void write_suite(const std::filesystem::path& root, const std::string& suite, const std::vector<fake_run>& runs)
{
    auto dir = root / suite;
    std::filesystem::create_directories(dir);
    bool scaled = !runs.empty() && !runs.front().scale.empty();
    std::ofstream summary(dir / (suite + ".csv"));
    summary << "scenario,model,trials,run_id,shape,git_revision" << (scaled ? ",scale" : "") << "\n";
    std::ofstream trials(dir / (suite + "-trials.csv"));
    trials << "run_id,scenario,model,trial,wall_millis,requests_per_second,latency_millis_p50,latency_millis_p99,"
              "requests_error,requests_unsent,server_rss_mb_max,server_cpu_percent_avg\n";
    for (const auto& r : runs) {
        summary << r.scenario << "," << r.arm << "," << r.trials << "," << r.run_id << ",closed,abc123"
                << (scaled ? "," + r.scale : "") << "\n";
        for (unsigned t = 1; t <= r.trials; ++t) {
            double k = 1 + 0.01 * (double(t % 3) - 1);
            trials << r.run_id << "," << r.scenario << "," << r.arm << "," << t << ",20000," << r.rps * k << ","
                   << r.p99 / 2 * k << "," << r.p99 * k << ",0," << r.unsent << ",12," << 50 * k << "\n";
        }
    }
}

/// A run with `run_id`, the given p99 median and arm; everything else as fake_run says.
fake_run run(std::string run_id, double p99 = 100, std::string arm = "loop")
{
    fake_run r;
    r.run_id = std::move(run_id);
    r.p99 = p99;
    r.arm = std::move(arm);
    return r;
}

/// `r` with one field changed.
template <class Field, class Value>
fake_run with(fake_run r, Field fake_run::*field, Value v)
{
    r.*field = v;
    return r;
}

struct outcome {
    int code = -1;
    std::string out;
    std::string err;
};

outcome bench_report(const std::vector<std::string>& args)
{
    std::vector<std::string> argv{EXECBENCH_BENCH_REPORT_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    child_process p(argv);
    outcome o;
    try {
        for (;;)
            o.out += p.read_line(std::chrono::seconds{30}) + "\n";
    } catch (const std::runtime_error&) {
        // stdout closed: the program is done
    }
    o.code = p.wait_exit(std::chrono::seconds{30}).value_or(-1);
    o.err = p.stderr_text();
    return o;
}

}  // namespace

TEST_CASE("compare: the same figures are unchanged and exit 0", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path / "old", "reactive", {run("r1"), run("r2", 300, "pool")});
    write_suite(tmp.path / "new", "reactive", {run("r3"), run("r4", 300, "pool")});
    auto o = bench_report({"compare", (tmp.path / "old/reactive").string(), (tmp.path / "new/reactive").string()});
    INFO(o.out << o.err);
    CHECK(o.code == 0);
    CHECK(o.out.find("| reactive | io-600 | loop | latency p99 | 100 | 100 | 1× (") != std::string::npos);
    CHECK(o.out.find("0 regressed, 0 improved, 12 unchanged") != std::string::npos);
}

TEST_CASE("compare: a slower arm regresses (exit 1), a faster one improves", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path / "old", "reactive", {run("r1"), run("r2", 100, "pool")});
    write_suite(tmp.path / "new", "reactive", {run("r3", 200), run("r4", 50, "pool")});
    auto o = bench_report({"compare", (tmp.path / "old").string(), (tmp.path / "new").string(), "--format", "json"});
    INFO(o.out << o.err);
    CHECK(o.code == 1);
    auto j = nlohmann::json::parse(o.out);
    REQUIRE(j["rows"].size() == 2);
    for (const auto& row : j["rows"]) {
        auto p99 = row["metrics"][2];
        CHECK(p99["metric"] == "latency p99");
        if (row["arm"] == "loop") {
            CHECK(p99["verdict"] == "regressed");
            CHECK(p99["low"].get<double>() > 1.05);
            CHECK(p99["ratio"].get<double>() == Approx(2.0));
        } else {
            CHECK(p99["verdict"] == "improved");
        }
    }
    CHECK(j["summary"]["regressed"].get<int>() == 2);  // loop's p50 and p99
}

TEST_CASE("compare: a change inside the threshold is unchanged; unsent requests regress", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path / "old", "s", {run("r1")});
    write_suite(tmp.path / "new", "s", {run("r2", 103)});
    CHECK(bench_report({"compare", (tmp.path / "old/s").string(), (tmp.path / "new/s").string()}).code == 0);
    // With a 1 % threshold the same 3 % is beyond the whole interval.
    CHECK(bench_report({"compare", (tmp.path / "old/s").string(), (tmp.path / "new/s").string(), "--threshold", "1"})
              .code == 1);
    write_suite(tmp.path / "behind", "s", {with(run("r3"), &fake_run::unsent, 40)});
    auto o = bench_report({"compare", (tmp.path / "old/s").string(), (tmp.path / "behind/s").string()});
    CHECK(o.code == 1);
    CHECK(o.out.find("errors + unsent | 0 | 40 | ∞× (∞–∞) | **regressed**") != std::string::npos);
}

TEST_CASE("compare: bad input exits 2 with the reason", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path / "old", "s", {run("r1")});
    write_suite(tmp.path / "other", "s", {with(run("r2"), &fake_run::scenario, std::string("cpu-60"))});
    write_suite(tmp.path / "few", "s", {with(run("r3"), &fake_run::trials, 2)});
    write_suite(tmp.path / "half", "s", {with(run("r4"), &fake_run::scale, std::string("0.5"))});
    auto old_dir = (tmp.path / "old/s").string();

    auto missing = bench_report({"compare", old_dir, (tmp.path / "nowhere").string()});
    CHECK(missing.code == 2);
    CHECK(missing.err.find("no such folder") != std::string::npos);
    auto nothing = bench_report({"compare", old_dir, (tmp.path / "other/s").string()});
    CHECK(nothing.code == 2);
    CHECK(nothing.err.find("nothing in common") != std::string::npos);
    auto few = bench_report({"compare", old_dir, (tmp.path / "few/s").string()});
    CHECK(few.code == 2);
    CHECK(few.err.find("fewer than 3 usable trials") != std::string::npos);
    auto scale = bench_report({"compare", old_dir, (tmp.path / "half/s").string()});
    CHECK(scale.code == 2);
    CHECK(scale.err.find("load scale differs (OLD 1, NEW 0.5)") != std::string::npos);
    CHECK(bench_report({"compare", old_dir, (tmp.path / "half/s").string(), "--allow-scale-mismatch"}).code == 0);
    CHECK(bench_report({"compare", old_dir}).code == 2);
    CHECK(bench_report({"compare", old_dir, old_dir, "--format", "xml"}).code == 2);
}

TEST_CASE("compare: --old-run and --new-run pick runs inside one folder", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path, "s", {run("2026-11-01T10:00:00Z-aaaa"), run("2026-11-02T10:00:00Z-bbbb", 250)});
    auto dir = (tmp.path / "s").string();
    auto o = bench_report({"compare", dir, dir, "--old-run", "2026-11-01", "--new-run", "2026-11-02"});
    INFO(o.out << o.err);
    CHECK(o.code == 1);
    // Without selectors both sides are the latest run: nothing changed.
    CHECK(bench_report({"compare", dir, dir}).code == 0);
}
