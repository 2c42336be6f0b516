#include "execbench/load/results/results.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/record/trial_metrics.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

trial_result fake_trial(unsigned index, duration wall, std::int64_t base_micros)
{
    trial_result t;
    t.index = index;
    auto& fg = t.measured.foreground;
    fg.wall = wall;
    for (std::int64_t i = 0; i < 1000; ++i)
        fg.latency.record(base_micros + i * 10);
    fg.service = fg.latency;
    fg.count.ok = 1000;
    fg.count.errors[static_cast<std::size_t>(error_class::reset)] = index;
    fg.timeline.resize(2);
    fg.timeline[0].ok = 600;
    fg.latency_seconds.record(0, base_micros);
    fg.timeline[1].ok = 400;
    t.measured.elapsed = wall + 10ms;
    t.measured.loadgen_cpu_seconds = 0.05;
    execbench::stats::process_summary s;
    s.samples = 5;
    s.resident_mb_max = 10.0 + index;
    t.server = s;
    return t;
}

run_record fake_run(std::vector<duration> walls)
{
    run_record r;
    r.scenario_used.name = "fake, with comma";
    r.scenario_used.description = "fake";
    r.scenario_used.load.kind = shape::burst;
    r.scenario_used.load.requests = 1000;
    r.run_id = "run-1";
    r.started_at = "2025-01-01T00:00:00Z";
    r.url = "http://127.0.0.1:1";
    r.server.model = "fiber";
    r.server.health_json = R"({"status":"up","model":"fiber","threads":2})";
    r.context = collect_context();
    unsigned i = 1;
    for (auto w : walls) {
        r.trials.push_back(fake_trial(i, w, 1000 * i));
        ++i;
    }
    summarize_trials(r);
    return r;
}

const metric_spread& find(const run_record& r, const std::string& name)
{
    for (const auto& m : r.summary)
        if (m.name == name)
            return m;
    FAIL("no metric " << name);
    throw;
}

}  // namespace

TEST_CASE("trials are summarised as median, min and max, and a wide spread is noisy", "[load]")
{
    auto r = fake_run({300ms, 100ms, 200ms});
    const auto& wall = find(r, "wall_millis");
    CHECK(wall.spread.median == Approx(200));
    CHECK(wall.spread.min == Approx(100));
    CHECK(wall.spread.max == Approx(300));
    CHECK(wall.noisy);
    CHECK(r.noisy());
    CHECK(find(r, "errors_reset").spread.median == Approx(2));
    CHECK(find(r, "server_rss_mb_max").spread.max == Approx(13));
    CHECK_THAT(format_summary_line(r),
               Catch::StartsWith("fiber fake, with comma median of 3: total=1002 ok=1000 errors=2"));
    CHECK_THAT(format_summary_line(r), Catch::Contains("NOISY(") && Catch::Contains("rss_max=12MiB"));

    auto steady = fake_run({200ms, 201ms, 199ms});
    CHECK_FALSE(find(steady, "wall_millis").noisy);
    CHECK_FALSE(find(steady, "errors_reset").noisy);  // only the noise metrics decide
    auto single = fake_run({500ms});
    CHECK_FALSE(single.noisy());
}

TEST_CASE("results files round-trip: CSV rows, histograms that merge exactly, timeline, context", "[load]")
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-results-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto paths = output_paths_for(dir / "sub" / "out.csv");
    CHECK(paths.trials == dir / "sub" / "out-trials.csv");
    CHECK(paths.histograms == dir / "sub" / "out-histograms.txt");

    auto r = fake_run({300ms, 100ms, 200ms});
    REQUIRE(write_results(r, paths).ok());
    REQUIRE(write_results(r, paths).ok());  // appended, header once

    auto summary = read_csv(paths.summary);
    REQUIRE(summary.ok());
    CHECK(summary->header == summary_columns());
    REQUIRE(summary->rows.size() == 2);
    const auto& row = summary->rows[0];
    auto at = [&](const char* name) { return row.at(static_cast<std::size_t>(summary->column(name))); };
    std::vector<std::string> leading{"scenario",
                                     "model",
                                     "arm",
                                     "trials",
                                     "requests_total",
                                     "requests_ok",
                                     "requests_error",
                                     "wall_millis",
                                     "requests_per_second",
                                     "latency_millis_min",
                                     "latency_millis_p50",
                                     "latency_millis_p90",
                                     "latency_millis_p99",
                                     "latency_millis_p999",
                                     "latency_millis_max"};
    CHECK(std::vector<std::string>(summary->header.begin(), summary->header.begin() + 15) == leading);
    CHECK(at("arm") == "fiber");  // no arm: the model
    CHECK(at("generator_bound_trials") == "0");
    CHECK(at("scenario") == "fake, with comma");
    CHECK(at("model") == "fiber");
    CHECK(at("trials") == "3");
    CHECK(at("wall_millis") == "200");
    CHECK(at("wall_millis_trial_min") == "100");
    CHECK(at("wall_millis_trial_max") == "300");
    CHECK(at("noisy") == "1");
    CHECK(at("partial") == "0");
    CHECK(at("server_health") == R"({"status":"up","model":"fiber","threads":2})");
    CHECK_FALSE(at("git_revision").empty());

    auto trials = read_csv(paths.trials);
    REQUIRE(trials.ok());
    CHECK(trials->rows.size() == 6);
    CHECK(trials->header == trial_columns());

    auto timeline = read_csv(paths.timeline);
    REQUIRE(timeline.ok());
    CHECK(timeline->rows.size() == 12);  // 2 seconds × 3 trials × 2 writes

    // The typed readers beside the writers: a summary row per run, a trial row per trial, a row per second.
    auto summaries = read_summary(paths.summary);
    REQUIRE(summaries.ok());
    REQUIRE(summaries->size() == 2);
    CHECK(cell_of(summaries->front(), "arm") == "fiber");
    CHECK(number_of(cell_of(summaries->front(), "trials")) == 3);
    CHECK(cell_of(summaries->front(), "no_such_column").empty());
    auto trial_rows = read_trial_rows(paths.trials);
    REQUIRE(trial_rows.ok());
    REQUIRE(trial_rows->size() == 6);
    CHECK(trial_rows->front().run_id == r.run_id);
    CHECK(trial_rows->front().figures.at("trial") == 1);
    auto seconds = read_second_rows(paths.timeline, row_kind::timeline);
    REQUIRE(seconds.ok());
    REQUIRE(seconds->size() == 12);
    CHECK(seconds->front().figures.at("requests_ok") == 600);
    CHECK(seconds->front().figures.count("run_id") == 0);  // identifiers are not figures
    CHECK(timeline->rows[0][static_cast<std::size_t>(timeline->column("requests_ok"))] == "600");

    auto hist = read_histograms(paths.histograms);
    REQUIRE(hist.ok());
    REQUIRE(hist->size() == 12);  // latency + service per trial, twice
    CHECK((*hist)[0].run_id == "run-1");
    CHECK((*hist)[0].trial == 1);
    CHECK((*hist)[0].series == "latency");
    CHECK((*hist)[0].histogram == r.trials[0].measured.foreground.latency);
    // Merging what was read equals merging the originals (results from several machines merge exactly).
    execbench::stats::histogram from_file, original;
    for (std::size_t i = 0; i < 3; ++i) {
        REQUIRE(from_file.merge((*hist)[i * 2].histogram).ok());
        REQUIRE(original.merge(r.trials[i].measured.foreground.latency).ok());
    }
    CHECK(from_file == original);
    CHECK(from_file.count() == 3000);

    std::ifstream ctx(paths.context);
    std::string line;
    REQUIRE(std::getline(ctx, line));
    CHECK_THAT(line, Catch::Contains("\"run_id\":\"run-1\"") && Catch::Contains("\"cpu_count\"") &&
                         Catch::Contains("\"model\":\"fiber\""));
    CHECK_THAT(line, Catch::Contains("\"arm\":{\"model\":\"fiber\",\"name\":\"fiber\"") &&
                         Catch::Contains("\"boost_version\"") && Catch::Contains("\"somaxconn\"") &&
                         Catch::Contains("\"affinity\""));

    // A file with a column this version does not write is not appended to.
    std::ofstream(dir / "other.csv") << "a,b\n1,2\n";
    auto clash = write_results(r, output_paths_for(dir / "other.csv"));
    REQUIRE_FALSE(clash.ok());
    CHECK_THAT(clash.err().message, Catch::Contains("has column 'a', which this version does not write"));

    // A v1 line (before arms): the arm is the model.
    {
        std::ofstream v1(dir / "v1-histograms.txt");
        v1 << "run\tscenario\tpool\t2\tlatency\t" << r.trials[0].measured.foreground.latency.serialize() << "\n";
    }
    auto old = read_histograms(dir / "v1-histograms.txt");
    REQUIRE(old.ok());
    REQUIRE(old->size() == 1);
    CHECK((*old)[0].arm == "pool");
    CHECK((*old)[0].trial == 2);
    CHECK((*hist)[0].arm == "fiber");

    std::ofstream(dir / "bad-histograms.txt") << "run\tscenario\tmodel\t1\tlatency\tnot-a-histogram\n";
    auto bad = read_histograms(dir / "bad-histograms.txt");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.err().message, Catch::Contains("bad-histograms.txt:1"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("results files of another version's columns are refused before a run, not after it", "[load]")
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-appendable-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto paths = output_paths_for(dir / "r.csv");
    CHECK(check_appendable(paths).ok());  // nothing there yet
    std::ofstream(paths.summary) << "scenario,model,old_column\n";
    auto refused = check_appendable(paths);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.err().message ==
          paths.summary.string() + ": has column 'old_column', which this version does not write; use another output folder");
    std::ofstream(paths.summary, std::ios::trunc) << "";
    CHECK(check_appendable(paths).ok());  // an empty file is a new one
    std::filesystem::remove_all(dir);
}

TEST_CASE("an earlier version's results file is widened to this version's columns and keeps its rows", "[load]")
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-widen-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto file = dir / "old.csv";
    // Two of today's columns, in another order, one quoted cell: what a version before the third column wrote.
    std::ofstream(file) << "model,scenario\npool,\"a,b\"\nloop,c\n";
    auto fit = detail::fit_columns(file, "scenario,model,kernel_resets_sent");
    REQUIRE(fit.ok());
    CHECK(*fit == detail::column_fit::wider);
    REQUIRE(detail::append_lines(file, "scenario,model,kernel_resets_sent", {"d,fiber,3"}).ok());
    auto t = read_csv(file);
    REQUIRE(t.ok());
    CHECK(t->header == std::vector<std::string>{"scenario", "model", "kernel_resets_sent"});
    REQUIRE(t->rows.size() == 3);
    // The earlier rows have no figure for the new column: empty, which reads as not measured, not as 0.
    CHECK(t->rows[0] == std::vector<std::string>{"a,b", "pool", ""});
    CHECK(t->rows[1] == std::vector<std::string>{"c", "loop", ""});
    CHECK(t->rows[2] == std::vector<std::string>{"d", "fiber", "3"});
    CHECK(*detail::fit_columns(file, "scenario,model,kernel_resets_sent") == detail::column_fit::same);
    CHECK_FALSE(std::filesystem::exists(dir / "old.csv.widening"));
    // Losing a column is refused, and the file is left as it was.
    auto before = read_csv(file);
    auto lost = detail::append_lines(file, "scenario,model", {"e,pool"});
    REQUIRE_FALSE(lost.ok());
    CHECK_THAT(lost.err().message, Catch::Contains("has column 'kernel_resets_sent'"));
    CHECK(read_csv(file)->rows == before->rows);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a per-second row leaves out the figures it does not have, and a file without run_id fails", "[load]")
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-seconds-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "t.csv") << "run_id,trial,second,users,requests_ok\nr1,2,0,,10\n";
    auto rows = read_second_rows(dir / "t.csv", row_kind::timeline);
    REQUIRE(rows.ok());
    REQUIRE(rows->size() == 1);
    CHECK(rows->front().trial == 2);
    CHECK(rows->front().figures.count("users") == 0);  // a ramp's users in an open run: absent, not 0
    CHECK(rows->front().figures.at("requests_ok") == 10);
    std::ofstream(dir / "t.csv", std::ios::app) << "r1,1,0,,7\nr2,2,0,,5\n";
    auto wanted = read_second_rows(dir / "t.csv", row_kind::timeline, [](std::string_view run_id, unsigned trial) {
        return run_id == "r1" && trial == 2;
    });
    REQUIRE(wanted.ok());
    REQUIRE(wanted->size() == 1);  // the other trial and the other run are left out
    CHECK(wanted->front().figures.at("requests_ok") == 10);
    CHECK(read_second_rows(dir / "t.csv", row_kind::timeline)->size() == 3);
    std::ofstream(dir / "bad.csv") << "trial,second\n1,0\n";
    auto bad = read_second_rows(dir / "bad.csv", row_kind::timeline);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.err().message, Catch::Contains("missing run_id or trial column"));
    CHECK(number_of("12.5") == 12.5);
    CHECK(number_of("") == 0);
    CHECK(number_of("n/a") == 0);
    std::filesystem::remove_all(dir);
}
