// The results files of one fixed run, compared byte for byte with tests/load/results/golden/: any change to what
// write_results writes (columns, order, number formats, context keys) shows here as a diff of a committed file.
// After an intended format change, regenerate with EXECBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "execbench/load/results/results.hpp"
#include "execbench/load/record/trial_metrics.hpp"

#include "execbench/core/file.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

// Everything a writer reads is set here, nothing from the machine or the clock.
machine_context fixed_context()
{
    machine_context c;
    c.execbench_version = "0.1.0";
    c.git_revision = "0123456789ab";
    c.source_digest = "0123456789abcdef";
    c.build_type = "Release";
    c.compiler = "GNU 12.2.0";
    c.cpu_model = "Golden CPU";
    c.cpu_count = 2;
    c.kernel = "6.1.0";
    c.hostname = "golden";
    c.boost_version = "1.81.0";
    c.cpu_mhz = 2450.5;
    c.memory_mb = 24000;
    c.rlimit_nofile = 1048576;
    c.somaxconn = 4096;
    c.port_range = "32768-60999";
    c.loadavg_before = 0.25;
    c.loadavg_after = 1.5;
    c.steal_percent = 0.125;
    return c;
}

trial_result fixed_trial(unsigned index)
{
    trial_result t;
    t.index = index;
    auto& fg = t.measured.foreground;
    fg.wall = std::chrono::milliseconds(1000 + 10 * index);
    for (std::int64_t i = 0; i < 500; ++i) {
        fg.latency.record(900 + i * 7 * index);
        fg.service.record(800 + i * 5 * index);
    }
    fg.count.ok = 500;
    fg.count.errors[static_cast<std::size_t>(error_class::request_timeout)] = index - 1;
    fg.count.unsent = index == 2 ? 3 : 0;
    fg.count.bytes_sent = 40000;
    fg.count.body_bytes_received = 12000;
    fg.timeline.resize(2);
    fg.timeline[0] = {.ok = 260, .errors = 0, .unsent = 0, .users = 10, .connections = 10, .sampled = true};
    fg.timeline[1] = {.ok = 240, .errors = index - 1, .unsent = 0, .users = 5, .connections = 10, .sampled = true};
    fg.latency_seconds.record(0, 1200);
    fg.latency_seconds.record(1, 3400);
    fg.service_seconds.record(0, 1100);
    t.measured.elapsed = fg.wall + 5ms;
    t.measured.loadgen_cpu_seconds = 0.0625 * index;
    execbench::stats::process_summary s;
    s.samples = 10;
    s.resident_mb_avg = 12.5;
    s.resident_mb_max = 14.0 + index;
    s.cpu_percent_avg = 20.0 + index;
    s.cpu_percent_max = 40.0;
    s.threads_max = 3;
    s.voluntary_switches = 1000 * index;
    s.involuntary_switches = 10;
    s.sockets_max = 12;
    s.resident_bytes_per_socket = 1000.0 + 0.5 * index;
    s.cpu_seconds = 0.2;
    t.server = s;
    if (index == 3) {
        t.generator_bound = true;
        t.generator_bound_reason = "load generator CPU 97% of 1 core";
    }
    return t;
}

run_record fixed_run()
{
    run_record r;
    r.scenario_used.name = "golden, quoted \"name\"";
    r.scenario_used.description = "a fixed run for the golden files";
    r.scenario_used.load.kind = shape::closed;
    r.scenario_used.load.connections = 10;
    r.scenario_used.load.length = 1s;
    r.run_id = "golden-run";
    r.started_at = "2026-01-02T03:04:05Z";
    r.url = "http://127.0.0.1:8080/io?delayInMillis=1";
    r.threads = 1;
    r.server.model = "loop";
    r.server.health_json = R"({"status":"up","model":"loop","threads":2})";
    r.server.local = true;
    r.server.pid = 4242;
    r.server.sampling = "proc";
    r.arm = {.name = "loop2", .model = "loop", .options = {{"threads", "2"}}};
    r.order = run_order{.kind = "interleaved", .seed = 7, .round = 2};
    r.affinity = {.server = "0", .load = "1", .downstream = ""};
    r.context = fixed_context();
    for (unsigned i = 1; i <= 3; ++i)
        r.trials.push_back(fixed_trial(i));
    summarize_trials(r);
    return r;
}

}  // namespace

TEST_CASE("write_results of a fixed run writes the committed golden files byte for byte", "[load][results]")
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-golden-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto paths = output_paths_for(dir / "golden.csv");
    REQUIRE(write_results(fixed_run(), paths).ok());

    const std::filesystem::path golden = EXECBENCH_SOURCE_DIR "/tests/load/results/golden";
    const bool update = std::getenv("EXECBENCH_UPDATE_GOLDEN") != nullptr;
    for (const auto& file : {paths.summary, paths.trials, paths.histograms, paths.timeline, paths.context}) {
        INFO(file.filename().string());
        auto written = execbench::read_file(file);
        REQUIRE(written.ok());
        if (update)
            std::ofstream(golden / file.filename(), std::ios::binary) << *written;
        auto expected = execbench::read_file(golden / file.filename());
        REQUIRE(expected.ok());
        CHECK(*written == *expected);
    }
    std::filesystem::remove_all(dir);
}
