// bench-suite: runs a suite (or a list) of scenarios under each model, a fresh bench-server per run.
#include "execbench/core/build_info.hpp"
#include "execbench/load/progress.hpp"
#include "execbench/load/results.hpp"
#include "execbench/load/scale.hpp"
#include "execbench/load/scenario.hpp"
#include "execbench/load/suite.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_sigint(int)
{
    stop_requested.store(true);
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

std::string clock_text(execbench::load::duration d)
{
    auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
    return buf;
}

/// bench-server beside this binary, when there is one.
std::filesystem::path default_server_binary()
{
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto beside = self.parent_path() / "bench-server";
        if (std::filesystem::exists(beside))
            return beside;
    }
    return "bench-server";
}

/// One line of the side-by-side table printed at the end.
struct table_row {
    std::string scenario, model, status;
    double ok = 0, errors = 0, wall = 0, rps = 0, p50 = 0, p99 = 0, rss = 0, cpu = 0, threads = 0;
    bool ran = false;
};

table_row row_of(const execbench::load::suite_entry& e, const execbench::load::run_result* r)
{
    table_row t{e.scenario, e.model, std::string(execbench::load::to_string(e.status))};
    if (!r || r->summary.empty())
        return t;
    t.ran = true;
    for (const auto& m : r->summary) {
        auto v = m.spread.median;
        if (m.name == "requests_ok") t.ok = v;
        else if (m.name == "requests_error") t.errors = v;
        else if (m.name == "wall_millis") t.wall = v;
        else if (m.name == "requests_per_second") t.rps = v;
        else if (m.name == "latency_millis_p50") t.p50 = v;
        else if (m.name == "latency_millis_p99") t.p99 = v;
        else if (m.name == "server_rss_mb_max") t.rss = v;
        else if (m.name == "server_cpu_percent_avg") t.cpu = v;
        else if (m.name == "server_threads_max") t.threads = v;
    }
    return t;
}

/// The models side by side, one block per scenario (medians across trials).
void print_table(const std::vector<table_row>& rows)
{
    std::printf("\n%-34s %-6s %-8s %9s %7s %10s %9s %10s %10s %8s %6s %7s\n", "scenario", "model", "status", "ok",
                "errors", "wall_ms", "req/s", "p50_ms", "p99_ms", "rss_MB", "cpu%", "threads");
    std::string last;
    for (const auto& r : rows) {
        const char* name = r.scenario == last ? "" : r.scenario.c_str();
        last = r.scenario;
        if (!r.ran) {
            std::printf("%-34s %-6s %-8s\n", name, r.model.c_str(), r.status.c_str());
            continue;
        }
        std::printf("%-34s %-6s %-8s %9.0f %7.0f %10.1f %9.0f %10.1f %10.1f %8.1f %6.0f %7.0f\n", name,
                    r.model.c_str(), r.status.c_str(), r.ok, r.errors, r.wall, r.rps, r.p50, r.p99, r.rss, r.cpu,
                    r.threads);
    }
    std::printf("\n");
}

constexpr int exit_ok = 0;
constexpr int exit_run_errors = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv)
{
    namespace load = execbench::load;
    CLI::App app{"bench-suite: runs scenarios under each model, a fresh bench-server per run, into results/<suite>/"};
    app.set_version_flag("--version", execbench::version_string());

    std::string suite;
    std::string scenario_list;
    std::string models = "pool,fiber,loop";
    std::optional<std::string> scenarios_dir;
    std::optional<std::string> server_bin;
    std::string results_dir = "results";
    std::optional<std::string> out_dir;
    load::suite_options options;
    bool quiet = false;
    double start_timeout = 20, stop_timeout = 15;

    app.add_option("--suite", suite, "Suite name: runs every scenario listing it (and names the results folder)");
    app.add_option("--scenarios", scenario_list, "Comma-separated scenario names (instead of, or narrowing, --suite)");
    app.add_option("--models", models, "Comma-separated models")->capture_default_str();
    app.add_option("--scenarios-dir", scenarios_dir, "Scenario directory (default: ./scenarios, then the installed one)");
    app.add_option("--server-bin", server_bin, "bench-server binary (default: the one beside this binary)");
    app.add_option("--results-dir", results_dir, "Results root; a suite writes to <root>/<suite>/")->capture_default_str();
    app.add_option("--out,--out-dir", out_dir, "Exact results folder (overrides --results-dir/<suite>)");
    app.add_option("--duration", options.override_values.duration, "Override every scenario's duration (e.g. 20s)");
    app.add_option("--warmup", options.override_values.warmup, "Override every scenario's warm-up");
    app.add_option("--trials", options.override_values.trials, "Override every scenario's number of trials");
    app.add_option("--pause", options.override_values.pause, "Override the pause between trials");
    app.add_option("--timeout", options.override_values.timeout, "Override the per-request timeout");
    app.add_option("--scale", options.override_values.scale,
                   "Run every scenario at F scale (0 < F <= 1): users, connections and rates times F, labelled");
    app.add_flag("--fit-to-limits", options.fit_to_limits,
                 "Run a scenario beyond the open-file limits at the largest scale that fits (labelled) instead of "
                 "not at all");
    app.add_option("--threads", options.threads, "Load-generator threads")->capture_default_str();
    app.add_option("--start-timeout", start_timeout, "Seconds to wait for a server's /health")->capture_default_str();
    app.add_option("--stop-timeout", stop_timeout, "Seconds between SIGTERM and SIGKILL")->capture_default_str();
    app.add_flag("--quiet", quiet, "No per-run progress bar");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        auto code = app.exit(e);
        return code == 0 ? exit_ok : exit_usage;
    }
    if (suite.empty() && scenario_list.empty()) {
        std::cerr << "bench-suite: give --suite NAME or --scenarios a,b,c\n";
        return exit_usage;
    }
    auto dir = load::find_scenario_dir(scenarios_dir);
    if (!dir) {
        std::cerr << "bench-suite: " << dir.err().message << "\n";
        return exit_usage;
    }
    options.scenarios_dir = *dir;
    options.scenarios = scenario_list.empty() ? load::scenarios_in_suite(*dir, suite) : split(scenario_list);
    if (options.scenarios.empty()) {
        std::cerr << "bench-suite: no scenario in " << dir->string() << " lists suite '" << suite << "'\n";
        return exit_usage;
    }
    options.suite = suite.empty() ? "adhoc" : suite;
    options.models = split(models);
    for (const auto& m : options.models)
        if (m != "pool" && m != "fiber" && m != "loop") {
            std::cerr << "bench-suite: --models: '" << m << "' is not pool, fiber or loop\n";
            return exit_usage;
        }
    options.server_binary = server_bin ? std::filesystem::path(*server_bin) : default_server_binary();
    options.out_dir = out_dir ? std::filesystem::path(*out_dir) : std::filesystem::path(results_dir) / options.suite;
    options.start_timeout = std::chrono::milliseconds(static_cast<long long>(start_timeout * 1000));
    options.stop_timeout = std::chrono::milliseconds(static_cast<long long>(stop_timeout * 1000));
    options.threads = std::max(1u, options.threads);

    std::signal(SIGINT, on_sigint);
    options.stop = &stop_requested;
    load::progress_printer progress(stderr);
    options.on_run_start = [&](const load::suite_progress& p) {
        progress.clear();
        std::fprintf(stderr, "== [%zu/%zu] %s %s  elapsed %s  remaining ~%s\n", p.index, p.count, p.scenario.c_str(),
                     p.model.c_str(), clock_text(p.elapsed).c_str(), clock_text(p.remaining).c_str());
        std::fflush(stderr);
    };
    options.on_progress = [&](const load::progress_event& ev) {
        if (!quiet)
            progress(ev);
    };
    std::vector<table_row> table;
    options.on_run_done = [&](const load::suite_entry& e, const load::run_result* r) {
        progress.clear();
        table.push_back(row_of(e, r));
        if (r && !r->trials.empty())
            std::printf("%s\n", load::format_summary_line(*r).c_str());
        if (r && r->scenario_used.scale.factor != 1)
            std::printf("%s %s: %s\n", e.model.c_str(), e.scenario.c_str(), load::scale_note(r->scenario_used).c_str());
        if (e.status != load::run_status::ok)
            std::printf("%s %s: %s%s%s\n", e.model.c_str(), e.scenario.c_str(),
                        std::string(load::to_string(e.status)).c_str(), e.message.empty() ? "" : ": ",
                        e.message.c_str());
        std::fflush(stdout);
    };

    std::fprintf(stderr, "bench-suite: %zu scenario(s) x %zu model(s) into %s\n", options.scenarios.size(),
                 options.models.size(), options.out_dir.string().c_str());
    auto entries = load::run_suite(options);
    if (!entries) {
        std::cerr << "bench-suite: " << entries.err().message << "\n";
        return exit_usage;
    }
    print_table(table);
    std::size_t ok = 0, errors = 0, failed = 0, not_run = 0;
    for (const auto& e : *entries) {
        switch (e.status) {
        case load::run_status::ok: ++ok; break;
        case load::run_status::errors: ++errors; break;
        case load::run_status::failed: ++failed; break;
        case load::run_status::not_run: ++not_run; break;
        }
    }
    std::printf("bench-suite %s: %zu run(s): %zu ok, %zu with request errors, %zu failed, %zu not run%s\n",
                options.suite.c_str(), entries->size(), ok, errors, failed, not_run,
                stop_requested.load() ? " (stopped early)" : "");
    return (failed > 0 || stop_requested.load()) ? exit_run_errors : exit_ok;
}
