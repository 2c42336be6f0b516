// The results schema's one upgrade path: every file kind states its schema when written, a file of schema 1 (written
// before files stated one) reads as the current schema, and a newer one is refused naming both versions.
#include "execbench/load/results/upgrade.hpp"

#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/hlog.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/results/server_timeline.hpp"

#include "execbench/core/file.hpp"
#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace execbench::load;
using execbench::test_support::temp_dir;
using execbench::test_support::write_file;
using namespace std::chrono_literals;

namespace {

const std::string current = std::to_string(schema_version);

/// The header and the last cell of each row of a CSV file: the schema column and what each row states.
void check_states_schema(const std::filesystem::path& file)
{
    INFO(file.filename().string());
    auto t = read_csv(file);
    REQUIRE(t);
    REQUIRE_FALSE(t->rows.empty());
    CHECK(t->header.back() == "schema");
    for (const auto& row : t->rows)
        CHECK(row.back() == current);
}

/// A run of one trial and one second, enough for every file write_results writes.
run_record one_run()
{
    run_record r;
    r.run_id = "r1";
    r.started_at = "2026-12-06T00:00:00Z";
    r.scenario_used.name = "io";
    r.scenario_used.load.length = 1s;
    r.server.model = "loop";
    trial_result t;
    t.index = 1;
    auto& fg = t.measured.foreground;
    fg.wall = 1s;
    fg.latency.record(1000);
    fg.service.record(900);
    fg.count.ok = 1;
    fg.timeline.resize(1);
    fg.timeline[0] = {.ok = 1, .errors = 0, .unsent = 0, .users = 1, .connections = 1, .sampled = true};
    fg.latency_seconds.record(0, 1000);
    t.measured.foreground.started_wall = std::chrono::system_clock::now();
    r.trials.push_back(t);
    summarize_trials(r);
    return r;
}

}  // namespace

TEST_CASE("every results file states the schema it was written in, and reads back", "[load][results][schema]")
{
    temp_dir d("execbench-schema");
    auto r = one_run();
    auto paths = output_paths_for(d.path / "x.csv");
    REQUIRE(write_results(r, paths));
    for (const auto& file : {paths.summary, paths.trials, paths.timeline})
        check_states_schema(file);
    CHECK(read_summary(paths.summary)->front().at("schema") == current);
    CHECK(read_trial_rows(paths.trials)->size() == 1);
    CHECK(read_second_rows(paths.timeline, row_kind::timeline)->size() == 1);

    // The context line, in its own file and before the run's histograms.
    auto context = execbench::read_file(paths.context);
    REQUIRE(context);
    CHECK_THAT(*context, Catch::Contains("\"schema\":" + current));
    CHECK(parse_context(context->substr(0, context->find('\n'))));
    auto histograms = execbench::read_file(paths.histograms);
    CHECK_THAT(*histograms, Catch::Contains("\"schema\":" + current));
    REQUIRE(read_histograms(paths.histograms));
    CHECK(read_histograms(paths.histograms)->front().arm == "loop");

    // The ledger.
    auto ledger = ledger_path(d.path, "x");
    REQUIRE(append_ledger(ledger, {"x", "io", "loop", run_status::ok, "r1", r.started_at, 1.5, "", "loop2"}));
    check_states_schema(ledger);
    CHECK(read_ledger(ledger)->front().arm == "loop2");

    // Capacity searches: the steps and the summary.
    capacity_record c{"c1", "io", "loop", "loop", "p99<=250ms", "fixed 10 connections", {}};
    c.result.steps.push_back({});
    c.result.steps.back().phase = "bracket";
    auto cpaths = capacity_paths_for(paths.summary);
    REQUIRE(write_capacity(c, cpaths));
    check_states_schema(cpaths.steps);
    check_states_schema(cpaths.summary);
    CHECK(read_capacity(cpaths)->front().result.steps.size() == 1);

    // A profile's counts.
    profile_capture p;
    p.run = r;
    p.run.arm.name = "loop";
    REQUIRE(write_profile(p, d.path));
    check_states_schema(profile_path(d.path, "io", "loop", "csv"));
    CHECK(read_profile_csv(profile_path(d.path, "io", "loop", "csv"))->arm == "loop");

    // The suite's server timeline.
    auto start = std::chrono::steady_clock::now();
    detail::sampled_server server{{{1, start, start + 1s}}, {}};
    for (int k = 0; k <= 10; ++k)
        server.readings.push_back({start + k * 100ms, {}});
    auto server_file = server_timeline_path(d.path, "x");
    REQUIRE(detail::append_lines(server_file, detail::server_timeline_header,
                                 detail::server_timeline_lines(r, {server}, 100ms)));
    check_states_schema(server_file);
    CHECK(read_second_rows(server_file, row_kind::server_timeline)->size() == 1);

    // The interval log is HdrHistogram's format: its execbench comment names the schema.
    auto hlog = format_hlog(r);
    REQUIRE(hlog);
    CHECK_THAT(*hlog, Catch::Contains(" schema=" + current + "]"));
}

TEST_CASE("a row of schema 1 is upgraded to the current schema", "[load][results][schema]")
{
    // Written before arms, scale, TLS and the schema column: the arm is the model, the scale 1, the load cleartext.
    record_row summary{{"scenario", "io"}, {"model", "fiber"}, {"run_id", "r1"}, {"requests_ok", "10"}};
    upgrade(row_kind::summary, summary, 1);
    CHECK(summary == record_row{{"scenario", "io"},
                                {"model", "fiber"},
                                {"arm", "fiber"},
                                {"run_id", "r1"},
                                {"requests_ok", "10"},
                                {"scale", "1"},
                                {"time_scale", "1"},
                                {"tls", "0"},
                                {"protocol", "http/1.1"},
                                {"streams", "1"},
                                {"schema", current}});
    // A figure schema 1 did not measure is not invented.
    CHECK_FALSE(summary.contains("kernel_time_wait"));

    // Trials before server_samples: the 10 Hz sampler's count over the wall time (start, every 100 ms, end).
    record_row trial{{"run_id", "r1"}, {"model", "pool"}, {"arm", "pool"}, {"wall_millis", "950"}};
    upgrade(row_kind::trial, trial, 1);
    CHECK(trial.at("server_samples") == "11");
    // A ledger line before arms; a capacity search before --pipeline.
    record_row ledger{{"suite", "s"}, {"model", "loop"}, {"arm", ""}};
    upgrade(row_kind::ledger, ledger, 1);
    CHECK(ledger.at("arm") == "loop");
    record_row capacity{{"run_id", "c1"}, {"arm", "loop"}, {"model", "loop"}};
    upgrade(row_kind::capacity, capacity, 1);
    CHECK(capacity.at("pipeline") == "1");

    // The current schema's rows are left as they are: an empty arm there is not a model's.
    record_row now{{"model", "loop"}, {"arm", ""}, {"schema", current}};
    REQUIRE(bring_to_current(row_kind::summary, now, "here"));
    CHECK(now.at("arm").empty());
    CHECK_FALSE(now.contains("scale"));
}

TEST_CASE("a summary row of schema 2 reads as run over its whole timeline", "[load][results][schema]")
{
    record_row summary{{"scenario", "io"}, {"arm", "loop"}, {"scale", "0.5"}, {"schema", "2"}};
    REQUIRE(bring_to_current(row_kind::summary, summary, "here"));
    CHECK(summary.at("time_scale") == "1");
    CHECK(summary.at("scale") == "0.5");
    CHECK(summary.at("schema") == current);
    // time_scale is the summary's alone.
    record_row trial{{"run_id", "r1"}, {"arm", "loop"}, {"schema", "2"}};
    REQUIRE(bring_to_current(row_kind::trial, trial, "here"));
    CHECK_FALSE(trial.contains("time_scale"));
}

TEST_CASE("a row of schema 2 is upgraded to 3: HTTP/1.1, one stream, no HTTP/2 errors", "[load][results][schema]")
{
    // Written before bench-load spoke HTTP/2.
    record_row summary{{"scenario", "io"}, {"arm", "loop"}, {"tls", "1"}, {"errors_reset", "2"}, {"schema", "2"}};
    REQUIRE(bring_to_current(row_kind::summary, summary, "here"));
    CHECK(summary.at("protocol") == "http/1.1");
    CHECK(summary.at("streams") == "1");
    CHECK(summary.at("errors_h2_reset") == "0");
    CHECK(summary.at("errors_h2_goaway") == "0");
    CHECK(summary.at("errors_reset") == "2");
    CHECK(summary.at("tls") == "1");
    CHECK(summary.at("schema") == current);
    record_row trial{{"run_id", "r1"}, {"errors_reset", "0"}, {"schema", "2"}};
    REQUIRE(bring_to_current(row_kind::trial, trial, "here"));
    CHECK(trial.at("errors_h2_reset") == "0");
    CHECK_FALSE(trial.contains("protocol"));  // the trials file has no context columns

    CHECK(summary.at("errors_interrupted") == "0");  // and, on to 4, nothing given up at a graceful stop

    // A row of the current schema keeps what it says.
    record_row h2{{"protocol", "h2"}, {"streams", "10"}, {"errors_h2_reset", "4"}, {"schema", current}};
    REQUIRE(bring_to_current(row_kind::summary, h2, "here"));
    CHECK(h2.at("protocol") == "h2");
    CHECK(h2.at("streams") == "10");
    CHECK(h2.at("errors_h2_reset") == "4");
}

TEST_CASE("files of schema 1 read as the current schema", "[load][results][schema]")
{
    temp_dir d("execbench-schema");
    // A summary and trials as written before arms, the server_samples column and the schema; one row widened by a
    // later version (empty cells in its new columns).
    write_file(d.path / "x.csv", "scenario,model,run_id,trials,requests_ok\nio,fiber,r1,3,10\n");
    auto summary = read_summary(d.path / "x.csv");
    REQUIRE(summary);
    CHECK(cell_of(summary->front(), "arm") == "fiber");
    CHECK(cell_of(summary->front(), "scale") == "1");
    CHECK(cell_of(summary->front(), "schema") == current);
    write_file(d.path / "w.csv",
               "scenario,model,arm,run_id,scale,schema\nio,pool,,r1,,\nio,pool,p2,r2,0.5," + current + "\n");
    auto widened = read_summary(d.path / "w.csv");
    REQUIRE(widened);
    CHECK(cell_of((*widened)[0], "arm") == "pool");
    CHECK(cell_of((*widened)[0], "scale") == "1");
    CHECK(cell_of((*widened)[1], "arm") == "p2");
    CHECK(cell_of((*widened)[1], "scale") == "0.5");

    write_file(d.path / "x-trials.csv", "run_id,scenario,model,trial,wall_millis\nr1,io,fiber,1,70\n");
    auto trials = read_trial_rows(d.path / "x-trials.csv");
    REQUIRE(trials);
    CHECK(trials->front().figures.at("server_samples") == 2);
    CHECK_FALSE(trials->front().figures.contains("schema"));  // a version, not a figure

    // A ledger before arms.
    write_file(d.path / "x-runs.csv",
               "suite,scenario,model,status,run_id,started_at,seconds,message\nx,io,loop,ok,r1,t,1.0,\n");
    auto ledger = read_ledger(d.path / "x-runs.csv");
    REQUIRE(ledger);
    CHECK(ledger->front().arm == "loop");

    // Histogram lines before arms, and a profile before the schema column.
    execbench::stats::histogram h;
    h.record(1000);
    write_file(d.path / "x-histograms.txt",
               "# execbench histograms v1\nr1\tio\tfiber\t1\tlatency\t" + h.serialize() + "\n");
    auto lines = read_histograms(d.path / "x-histograms.txt");
    REQUIRE(lines);
    CHECK(lines->front().arm == "fiber");
    CHECK(lines->front().trial == 1);
    write_file(d.path / "p.csv", "run_id,started_at,git_revision,scenario,arm,model,kind,name,total,per_request\n"
                                 "r1,t,g,io,pool,pool,trial,requests,100,\n");
    auto profile = read_profile_csv(d.path / "p.csv");
    REQUIRE(profile);
    CHECK(profile->trial("requests") == 100);

    // A context line that states no schema.
    CHECK(parse_context(R"({"run_id":"r1"})")->run_id == "r1");
}

TEST_CASE("a file of a newer schema is refused, naming both versions", "[load][results][schema]")
{
    temp_dir d("execbench-schema");
    const std::string newer = std::to_string(schema_version + 1);
    const std::string expected = "schema " + newer + " is newer than this execbench reads (" + current + ")";

    write_file(d.path / "x.csv",
               "scenario,model,arm,run_id,schema\nio,pool,pool,r1," + current + "\nio,pool,pool,r2," + newer + "\n");
    auto summary = read_summary(d.path / "x.csv");
    REQUIRE_FALSE(summary);
    CHECK_THAT(summary.err().message, Catch::StartsWith((d.path / "x.csv").string() + " line 3: " + expected));
    CHECK_THAT(summary.err().message, Catch::Contains("rebuild execbench"));

    write_file(d.path / "x-runs.csv", "suite,scenario,model,arm,status,run_id,started_at,seconds,message,schema\n"
                                      "x,io,loop,loop,ok,r1,t,1.0,," +
                                          newer + "\n");
    CHECK_THAT(read_ledger(d.path / "x-runs.csv").err().message, Catch::Contains(expected));

    auto context = parse_context(R"({"run_id":"r1","schema":)" + newer + "}");
    REQUIRE_FALSE(context);
    CHECK_THAT(context.err().message, Catch::Contains(expected));
    execbench::stats::histogram h;
    write_file(d.path / "x-histograms.txt",
               "# context {\"schema\":" + newer + "}\nr1\tio\tpool\tpool\t1\tlatency\t" + h.serialize() + "\n");
    CHECK_THAT(read_histograms(d.path / "x-histograms.txt").err().message, Catch::Contains(expected));

    // A cell that is no version at all.
    write_file(d.path / "y.csv", "scenario,schema\nio,two\n");
    CHECK_THAT(read_summary(d.path / "y.csv").err().message, Catch::Contains("schema 'two' is not a version number"));
}

TEST_CASE("a row of schema 3 is upgraded to 4: nothing given up at a graceful stop", "[load][results][schema]")
{
    // Written before scenarios had a graceful stop: every request in flight at the end waited out its timeout.
    record_row summary{{"scenario", "io"}, {"errors_reset", "2"}, {"errors_request_timeout", "5"}, {"schema", "3"}};
    REQUIRE(bring_to_current(row_kind::summary, summary, "here"));
    CHECK(summary.at("errors_interrupted") == "0");
    CHECK(summary.at("errors_request_timeout") == "5");
    record_row interrupted{{"errors_reset", "0"}, {"errors_interrupted", "7"}, {"schema", current}};
    REQUIRE(bring_to_current(row_kind::trial, interrupted, "here"));
    CHECK(interrupted.at("errors_interrupted") == "7");
    // A row with no error columns (a capacity step's) gains none.
    record_row step{{"offered_rps", "100"}, {"schema", "3"}};
    REQUIRE(bring_to_current(row_kind::capacity_step, step, "here"));
    CHECK_FALSE(step.contains("errors_interrupted"));
}
