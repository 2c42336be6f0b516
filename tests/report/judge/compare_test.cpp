#include "execbench/report/judge/compare.hpp"

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
    double spread = 0.01;  ///< each trial is the median times 1 - spread, 1 or 1 + spread
    std::string scale;     ///< "" = no scale column (older results)
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
            double k = 1 + r.spread * (double(t % 3) - 1);
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
    CHECK(o.out.find("| reactive | io-600 | loop | latency p99 | 100 ms | 100 ms | 1× (") != std::string::npos);
    CHECK(o.out.find("0 regressed, 0 improved, 12 unchanged") != std::string::npos);
}

TEST_CASE("compare: two folders named as a user names them are labelled by their suite, figures with units",
          "[report][compare]")
{
    // The user review of 2026-12-03: `compare runs/a runs/b` labelled every row's suite `b`, the NEW folder's name.
    temp_dir tmp;
    write_suite(tmp.path / "runs", "adhoc", {run("r1"), run("r2", 300, "pool")});
    std::filesystem::rename(tmp.path / "runs" / "adhoc", tmp.path / "runs" / "a");
    write_suite(tmp.path / "runs", "adhoc", {run("r3"), run("r4", 300, "pool")});
    std::filesystem::rename(tmp.path / "runs" / "adhoc", tmp.path / "runs" / "b");
    auto o = bench_report({"compare", (tmp.path / "runs/a").string(), (tmp.path / "runs/b").string()});
    INFO(o.out << o.err);
    CHECK(o.code == 0);
    CHECK(o.out.find("| adhoc | io-600 | loop | latency p99 | 100 ms | 100 ms |") != std::string::npos);
    CHECK(o.out.find("| b |") == std::string::npos);
    auto json =
        bench_report({"compare", "--format", "json", (tmp.path / "runs/a").string(), (tmp.path / "runs/b").string()});
    CHECK(json.out.find("\"unit\": \"ms\"") != std::string::npos);
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

TEST_CASE("compare: a change inside the threshold is unchanged, unsent requests regress", "[report][compare]")
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

TEST_CASE("compare: an interval that reaches past the threshold is inconclusive, not unchanged", "[report][compare]")
{
    temp_dir tmp;
    write_suite(tmp.path / "old", "s", {run("r1")});
    // p99 +10 % at the median, but the trials spread ±30 %: the interval holds both 0.95 and 1.05.
    write_suite(tmp.path / "new", "s", {with(run("r2", 110), &fake_run::spread, 0.3)});
    auto o = bench_report({"compare", (tmp.path / "old/s").string(), (tmp.path / "new/s").string()});
    INFO(o.out << o.err);
    CHECK(o.code == 0);
    CHECK(o.out.find("| latency p99 | 100 ms | 110 ms | 1.1× (") != std::string::npos);
    CHECK(o.out.find(") | inconclusive |") != std::string::npos);
    CHECK(o.out.find("inconclusive (the interval reaches past ±5 %)") != std::string::npos);
    // The unchanged metrics' intervals lie within ±5 %.
    CHECK(o.out.find("| req/s | 1000 req/s | 1000 req/s | 1× (") != std::string::npos);
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
    // Without selectors both sides are the latest run: nothing changed, and it says so.
    auto same = bench_report({"compare", dir, dir});
    CHECK(same.code == 0);
    CHECK(same.err.find("warning: OLD and NEW are the same folder") != std::string::npos);
    CHECK(same.out.find("**Warning:** OLD and NEW are the same folder") != std::string::npos);
    CHECK(o.err.find("warning") == std::string::npos);
}

TEST_CASE("compare reads every folder bench-suite and bench-load write, whatever its name", "[report][compare]")
{
    // Real folders: a tiny burst scenario, three trials, one arm; bench-suite --out twice, --results-dir once, and
    // bench-load --out into a folder whose summary has yet another name.
    temp_dir tmp;
    std::string scenarios = std::string(EXECBENCH_SOURCE_DIR) + "/scenarios";
    auto suite = [&](std::vector<std::string> where) {
        std::vector<std::string> argv{EXECBENCH_BENCH_SUITE_PATH,
                                      "--scenarios-dir",
                                      scenarios,
                                      "--scenarios",
                                      "smoke-burst-io",
                                      "--models",
                                      "fiber,loop",
                                      "--trials",
                                      "3",
                                      "--warmup",
                                      "0s",
                                      "--server-bin",
                                      EXECBENCH_BENCH_SERVER_PATH,
                                      "--quiet"};
        argv.insert(argv.end(), where.begin(), where.end());
        child_process p(argv);
        auto code = p.wait_exit(std::chrono::seconds{120});
        outcome o;
        try {
            for (;;)
                o.out += p.read_line(std::chrono::seconds{2}) + "\n";
        } catch (const std::runtime_error&) {
            // end of its stdout
        }
        o.err = p.stderr_text();
        INFO(o.err);
        REQUIRE(code == 0);
        o.code = *code;
        return o;
    };
    auto first = suite({"--out", (tmp.path / "a").string()});
    // The run ends with its answer, in the headline's words, and --quiet leaves out the per-round lines.
    INFO(first.out << first.err);
    CHECK(first.out.find("\n\nverdicts (ratio of medians, 95 % bootstrap interval; a tie within 2 %):\n\n") !=
          std::string::npos);
    CHECK(first.out.find("\n- smoke-burst-io latency p99 — ") != std::string::npos);
    CHECK(first.out.find("\n- smoke-burst-io req/s — ") != std::string::npos);
    // The closing table, rendered from the page model: a header line, and the scenario named on its first arm only.
    CHECK(first.out.find("\nscenario ") != std::string::npos);
    CHECK(first.out.find(" p99_ms ") != std::string::npos);
    CHECK(first.err.find("== [") == std::string::npos);
    suite({"--out", (tmp.path / "b").string()});
    suite({"--results-dir", (tmp.path / "root").string()});
    {
        execbench::test_support::server_process server({"--model=loop"});
        child_process load({EXECBENCH_BENCH_LOAD_PATH, "--scenarios-dir", scenarios, "--scenario", "smoke-burst-io",
                            "--url", "http://127.0.0.1:" + std::to_string(server.port()), "--trials", "3", "--warmup",
                            "0s", "--quiet", "--out", (tmp.path / "c" / "mine.csv").string()});
        auto code = load.wait_exit(std::chrono::seconds{60});
        INFO(load.stderr_text());
        REQUIRE(code == 0);
    }
    REQUIRE(std::filesystem::exists(tmp.path / "a" / "adhoc.csv"));  // named after no folder
    REQUIRE(std::filesystem::exists(tmp.path / "root" / "adhoc" / "adhoc.csv"));

    for (auto [old_dir, new_dir] :
         {std::pair{"a", "b"}, std::pair{"a", "root"}, std::pair{"root/adhoc", "c"}, std::pair{"c", "a"}}) {
        auto o = bench_report({"compare", (tmp.path / old_dir).string(), (tmp.path / new_dir).string()});
        INFO(old_dir << " → " << new_dir << "\n" << o.out << o.err);
        CHECK((o.code == 0 || o.code == 1));  // regressed or not: the machine is noisy; read and compared
        CHECK(o.out.find(" | smoke-burst-io | loop | latency p99 | ") != std::string::npos);
        CHECK(o.out.find(" | smoke-burst-io | loop | wall time | ") != std::string::npos);
        if (std::string(new_dir) != "c" && std::string(old_dir) != "c")  // bench-load ran loop only
            CHECK(o.out.find(" | smoke-burst-io | fiber | latency p99 | ") != std::string::npos);
        CHECK(o.err.find("warning") == std::string::npos);
    }
    auto self = bench_report({"compare", (tmp.path / "a").string(), (tmp.path / "a").string()});
    CHECK(self.code == 0);
    CHECK(self.err.find("warning: OLD and NEW are the same folder") != std::string::npos);
    // A copy under another name holds the same runs: warned as well.
    std::filesystem::copy(tmp.path / "a", tmp.path / "a-copy");
    auto copy = bench_report({"compare", (tmp.path / "a").string(), (tmp.path / "a-copy").string()});
    CHECK(copy.err.find("warning: OLD and NEW hold the same runs") != std::string::npos);
    // The main command reads the same folders by the same rule.
    for (const auto* dir : {"a", "c"}) {
        auto r = bench_report({"--results", (tmp.path / dir).string(), "--docs", (tmp.path / "docs").string(),
                               "--readme", (tmp.path / "README.md").string(), "--no-charts"});
        INFO(dir << "\n" << r.out << r.err);
        CHECK(r.code == 0);
    }
    std::filesystem::create_directories(tmp.path / "empty");
    auto none = bench_report({"compare", (tmp.path / "a").string(), (tmp.path / "empty").string()});
    CHECK(none.code == 2);
    CHECK(none.err.find("empty: holds no results") != std::string::npos);
}
