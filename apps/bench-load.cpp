// bench-load: parses options and runs a scenario through the execbench load library.
#include "execbench/core/build_info.hpp"
#include "execbench/load/overrides.hpp"
#include "execbench/load/progress.hpp"
#include "execbench/load/results.hpp"
#include "execbench/load/runner.hpp"
#include "execbench/load/scenario.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_sigint(int)
{
    stop_requested.store(true);
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

constexpr int exit_ok = 0;
constexpr int exit_run_errors = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv)
{
    namespace load = execbench::load;
    CLI::App app{"bench-load: drives an HTTP/1.1 server with named scenarios and writes median-of-N results"};
    app.set_version_flag("--version", execbench::version_string());

    std::optional<std::string> scenario_name;
    bool list = false;
    std::optional<std::string> scenarios_dir;
    load::run_options options;
    load::overrides o;
    std::optional<std::string> out;
    bool quiet = false;
    std::optional<int> server_pid;
    std::optional<unsigned> threads;

    app.add_option("--scenario", scenario_name, "Scenario name (a file scenarios/<name>.json)");
    app.add_flag("--list-scenarios", list, "List scenarios: name, suites, description");
    app.add_option("--scenarios-dir", scenarios_dir, "Scenario directory (default: ./scenarios, then the installed one)");
    app.add_option("--url", options.url, "Server base URL")->capture_default_str();
    app.add_flag("--allow-remote", options.allow_remote, "Allow a target that is not loopback");
    app.add_option("--path", o.path, "Request path with query (ad-hoc run, or replaces the scenario's requests)");
    app.add_option("--method", o.method, "Request method");
    app.add_option("--body-file", o.body_file, "Request body file");
    app.add_option("--header", o.headers, "Request header \"Name: value\" (repeatable)");
    app.add_option("--shape", o.shape, "Load shape")->check(CLI::IsMember({"burst", "closed", "open", "ramp"}));
    app.add_option("--connections", o.connections, "Connections (ramp: peak users)");
    app.add_option("--requests", o.requests, "Requests in a burst");
    app.add_option("--rate", o.rate, "Open shape: requests per second");
    app.add_option("--duration", o.duration, "How long requests are issued: seconds or 500ms, 3s, 2m");
    app.add_option("--think", o.think, "Think time between a response and the next request: 2s or 1s..3s");
    app.add_option("--threads", threads, "Load-generator threads (default 1)");
    app.add_option("--trials", o.trials, "Number of measured trials");
    app.add_option("--warmup", o.warmup, "Warm-up duration (not recorded)");
    app.add_option("--pause", o.pause, "Pause between trials");
    app.add_option("--timeout", o.timeout, "Per-request timeout");
    app.add_option("--scale", o.scale,
                   "Multiply every user, connection and rate figure by F (0 < F <= 1), after the other options; "
                   "recorded and labelled in the results");
    app.add_option("--out", out, "Summary CSV to append to (trials, histograms, timeline, context beside it)");
    app.add_flag("--quiet", quiet, "No progress output");
    app.add_option("--server-pid", server_pid, "Pid of the server to sample (default: found from the port)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        auto code = app.exit(e);
        return code == 0 ? exit_ok : exit_usage;
    }

    if (list) {
        auto dir = load::find_scenario_dir(scenarios_dir);
        if (!dir) {
            std::cerr << "bench-load: " << dir.err().message << "\n";
            return exit_usage;
        }
        for (const auto& e : load::list_scenarios(*dir)) {
            std::string suites;
            for (const auto& s : e.suites)
                suites += (suites.empty() ? "" : ",") + s;
            std::printf("%-32s %-12s %s\n", e.name.c_str(), suites.c_str(),
                        e.problem.empty() ? e.description.c_str() : ("INVALID: " + e.problem).c_str());
        }
        return exit_ok;
    }

    load::scenario s = load::ad_hoc_scenario();
    if (scenario_name) {
        auto dir = load::find_scenario_dir(scenarios_dir);
        if (!dir) {
            std::cerr << "bench-load: " << dir.err().message << "\n";
            return exit_usage;
        }
        auto loaded = load::load_named_scenario(*dir, *scenario_name);
        if (!loaded) {
            std::cerr << "bench-load: " << loaded.err().message << "\n";
            return exit_usage;
        }
        s = std::move(loaded.value());
    }
    if (auto applied = load::apply_overrides(s, o); !applied) {
        std::cerr << "bench-load: " << applied.err().message << "\n";
        return exit_usage;
    }
    if (threads) {
        if (*threads < 1) {
            std::cerr << "bench-load: --threads: expected at least 1\n";
            return exit_usage;
        }
        options.threads = *threads;
    }
    if (server_pid)
        options.server_pid = static_cast<pid_t>(*server_pid);

    std::signal(SIGINT, on_sigint);
    options.stop = &stop_requested;
    load::progress_printer progress(stderr);
    options.on_progress = [&](const load::progress_event& ev) {
        if (!quiet)
            progress(ev);
        if (ev.what == load::progress_event::phase::trial_done && ev.finished) {
            progress.clear();
            std::printf("%s\n", load::format_trial_line(*ev.run, *ev.finished).c_str());
            std::fflush(stdout);
        }
    };

    auto result = load::run(s, options);
    if (!result) {
        std::cerr << "bench-load: " << result.err().message << "\n";
        return exit_usage;
    }
    const auto& r = *result;
    progress.clear();
    if (!r.trials.empty())
        std::printf("%s\n", load::format_summary_line(r).c_str());
    if (out) {
        auto paths = load::output_paths_for(*out);
        if (auto written = load::write_results(r, paths); !written) {
            std::cerr << "bench-load: " << written.err().message << "\n";
            return exit_run_errors;
        }
    }
    if (r.partial)
        std::cerr << "bench-load: stopped early; results written so far are marked partial\n";
    return (r.had_errors() || r.partial) ? exit_run_errors : exit_ok;
}
