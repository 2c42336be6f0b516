// bench-suite: runs a suite (or a list) of scenarios under each model, a fresh bench-server per run.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/capacity.hpp"
#include "execbench/load/run/metric_names.hpp"
#include "execbench/load/run/progress.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/run/slo.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"
#include "execbench/report/headline.hpp"
#include "execbench/report/suite_reader.hpp"
#include "execbench/report/winners.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <tuple>

#include <unistd.h>

namespace {

using namespace execbench::apps;
constexpr std::string_view program = "bench-suite";

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
    std::string scenario, arm, status;
    double ok = 0, errors = 0, unsent = 0, wall = 0, rps = 0, p50 = 0, p99 = 0, rss = 0, cpu = 0, threads = 0;
    bool ran = false;
};

table_row row_of(const execbench::load::suite_entry& e, const execbench::load::run_result* r)
{
    table_row t{e.scenario, e.arm_name(), std::string(execbench::load::to_string(e.status))};
    if (!r || r->summary.empty())
        return t;
    t.ran = true;
    namespace metric = execbench::load::metric;
    for (const auto& m : r->summary) {
        auto v = m.spread.median;
        if (m.name == metric::requests_ok)
            t.ok = v;
        else if (m.name == metric::requests_error)
            t.errors = v;
        else if (m.name == metric::requests_unsent)
            t.unsent = v;
        else if (m.name == metric::wall_millis)
            t.wall = v;
        else if (m.name == metric::requests_per_second)
            t.rps = v;
        else if (m.name == metric::latency_millis_p50)
            t.p50 = v;
        else if (m.name == metric::latency_millis_p99)
            t.p99 = v;
        else if (m.name == metric::server_rss_mb_max)
            t.rss = v;
        else if (m.name == metric::server_cpu_percent_avg)
            t.cpu = v;
        else if (m.name == metric::server_threads_max)
            t.threads = v;
    }
    return t;
}

/// The arms side by side, one block per scenario (medians across trials).
void print_table(const std::vector<table_row>& rows)
{
    std::printf("\n%-34s %-10s %-8s %9s %7s %8s %10s %9s %10s %10s %8s %6s %7s\n", "scenario", "arm", "status", "ok",
                "errors", "unsent", "wall_ms", "req/s", "p50_ms", "p99_ms", "rss_MB", "cpu%", "threads");
    std::string last;
    for (const auto& r : rows) {
        const char* name = r.scenario == last ? "" : r.scenario.c_str();
        last = r.scenario;
        if (!r.ran) {
            std::printf("%-34s %-10s %-8s\n", name, r.arm.c_str(), r.status.c_str());
            continue;
        }
        std::printf("%-34s %-10s %-8s %9.0f %7.0f %8.0f %10.1f %9.0f %10.1f %10.1f %8.1f %6.0f %7.0f\n", name,
                    r.arm.c_str(), r.status.c_str(), r.ok, r.errors, r.unsent, r.wall, r.rps, r.p50, r.p99, r.rss,
                    r.cpu, r.threads);
    }
    std::printf("\n");
}

/// The scenarios to run: the suite's, narrowed by --scenarios to the names it lists (a name not in the suite is an
/// error: its results would be filed under a suite it does not belong to), or --scenarios alone.
execbench::result<std::vector<std::string>> select_scenarios(const std::filesystem::path& dir, const std::string& suite,
                                                             const std::string& scenario_list)
{
    namespace load = execbench::load;
    std::vector<std::string> all;
    for (const auto& e : load::list_scenarios(dir))
        all.push_back(e.name);
    auto listed = split(scenario_list);
    for (const auto& name : listed)
        if (std::find(all.begin(), all.end(), name) == all.end()) {
            auto guess = load::closest_match(name, all);
            return execbench::fail("--scenarios: no scenario '" + name + "' in " + dir.string() +
                                   (guess ? "; did you mean " + *guess + "?" : std::string{}));
        }
    if (suite.empty())
        return listed;
    auto in_suite = load::scenarios_in_suite(dir, suite);
    if (in_suite.empty()) {
        std::vector<std::string> suites;
        for (const auto& [name, members] : load::list_suites(dir))
            suites.push_back(name);
        auto guess = load::closest_match(suite, suites);
        return execbench::fail("--suite: no scenario in " + dir.string() + " lists suite '" + suite + "'" +
                               (guess ? "; did you mean " + *guess + "?" : std::string{}) +
                               " (bench-load --list-suites lists them)");
    }
    if (listed.empty())
        return in_suite;
    std::vector<std::string> out;
    for (const auto& name : in_suite)
        if (std::find(listed.begin(), listed.end(), name) != listed.end())
            out.push_back(name);
    for (const auto& name : listed)
        if (std::find(in_suite.begin(), in_suite.end(), name) == in_suite.end())
            return execbench::fail("--scenarios: " + name + " is not in suite " + suite +
                                   "; its results would be filed under it (drop --suite to run it on its own)");
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    namespace load = execbench::load;
    // A suite runs for minutes to hours: its lines reach a log file (`> run.log`, `tail -f`) as they are printed,
    // not one 4 KB block later.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CLI::App app{"bench-suite: runs scenarios under each model, a fresh bench-server per run, into results/<suite>/"};
    app.set_version_flag("--version", execbench::version_string());

    std::string suite;
    std::string scenario_list;
    std::string models = "pool,fiber,loop";
    std::vector<std::string> arm_texts;
    std::string order = "interleaved";
    std::optional<std::uint64_t> seed;
    std::optional<std::string> server_cpus, load_cpus, downstream_cpus;
    bool no_pin = false;
    std::optional<std::string> scenarios_dir;
    std::optional<std::string> server_bin;
    std::string results_dir = "results";
    std::optional<std::string> out_dir;
    load::suite_options options;
    bool quiet = false;
    double start_timeout = 20, stop_timeout = 15;

    app.add_option("--suite", suite, "Suite name: runs every scenario listing it (and names the results folder)");
    app.add_option("--scenarios", scenario_list,
                   "Comma-separated scenario names: alone, or narrowing --suite to those of its scenarios");
    app.add_option("--models", models, "Comma-separated models, one arm each named after its model")
        ->capture_default_str();
    app.add_option("--arm", arm_texts,
                   "NAME=MODEL[:OPTION=VALUE,...], repeatable (replaces --models), e.g. pool400=pool:threads=400");
    app.add_option("--order", order, "interleaved (rounds of one trial per arm, shuffled) or blocked")
        ->capture_default_str();
    app.add_option("--seed", seed, "Seed of the interleaved order (default: from the clock; printed and recorded)");
    app.add_option("--server-cpus", server_cpus, "CPUs of the server under test, e.g. 0 or 0-3 (default: see docs)");
    app.add_option("--load-cpus", load_cpus, "CPUs of the load generator (this process)");
    app.add_option("--downstream-cpus", downstream_cpus, "CPUs of a separate downstream server");
    app.add_flag("--no-pin", no_pin, "Pin nothing (the default splits the CPUs between server and generator)");
    app.add_option("--scenarios-dir", scenarios_dir,
                   "Scenario directory (default: ./scenarios, then the installed one)");
    app.add_option("--server-bin", server_bin, "bench-server binary (default: the one beside this binary)");
    app.add_option("--results-dir", results_dir, "Results root; a suite writes to <root>/<suite>/")
        ->capture_default_str();
    app.add_option("--out,--out-dir", out_dir, "Exact results folder (overrides --results-dir/<suite>)");
    std::optional<std::string> capacity_from;
    app.add_option("--capacity-from", capacity_from,
                   "Capacity searches for a rate given as a multiple of each arm's capacity: a results folder or "
                   "its CSV (default: <results-dir>/capacity)");
    app.add_flag("--hlog", options.hlog,
                 "Also write each scenario and arm's trials as an HdrHistogram interval log, "
                 "<results folder>/hlog/<scenario>-<arm>.hlog");
    app.add_flag("--profile", options.profile,
                 "After the measured trials, one more per scenario and arm with the server under perf (not a "
                 "result): flame graph, stacks and per-request counts in <results folder>/profile/");
    app.add_option("--duration", options.override_values.duration,
                   "Override the duration of every closed, open or ramp scenario (e.g. 20s)");
    app.add_option("--warmup", options.override_values.warmup, "Override every scenario's warm-up");
    app.add_option("--trials", options.override_values.trials, "Override every scenario's number of trials")
        ->check(integer_in(1, 1000, "a number of trials"));
    app.add_option("--pause", options.override_values.pause, "Override the pause between trials");
    app.add_option("--timeout", options.override_values.timeout, "Override the per-request timeout");
    app.add_option("--scale", options.override_values.scale,
                   "Run every scenario at F scale (0 < F <= 1): users, connections and rates times F, labelled");
    app.add_flag("--fit-to-limits", options.fit_to_limits,
                 "Run a scenario beyond the open-file limits at the largest scale that fits (labelled) instead of "
                 "not at all");
    app.add_option("--threads", options.threads, "Load-generator threads")
        ->check(integer_in(1, 1024, "a number of threads"))
        ->capture_default_str();
    app.add_option("--start-timeout", start_timeout, "Seconds to wait for a server's /health")
        ->check(number_in(0.1, 3600, "a number of seconds"))
        ->capture_default_str();
    app.add_option("--stop-timeout", stop_timeout, "Seconds between SIGTERM and SIGKILL")
        ->check(number_in(0.1, 3600, "a number of seconds"))
        ->capture_default_str();
    std::optional<std::string> slo_text;
    app.add_option("--slo", slo_text,
                   "Gates every run must pass, e.g. 'p99<300ms,errors=0'; exit 3 when one is broken");
    app.add_flag("--quiet", quiet, "No per-round progress lines or progress bar (the results table still prints)");

    if (auto code = parse_command_line(app, program, argc, argv))
        return *code;
    if (suite.empty() && scenario_list.empty())
        return usage_error(program, "give --suite NAME or --scenarios a,b,c");
    std::vector<load::slo_gate> gates;
    if (slo_text) {
        auto parsed = load::parse_slo(*slo_text);
        if (!parsed)
            return usage_error(program, parsed.err().message);
        gates = std::move(*parsed);
    }
    auto dir = load::find_scenario_dir(scenarios_dir);
    if (!dir)
        return usage_error(program, dir.err().message);
    options.scenarios_dir = *dir;
    auto selected = select_scenarios(*dir, suite, scenario_list);
    if (!selected)
        return usage_error(program, selected.err().message);
    options.scenarios = std::move(*selected);
    {
        // Overrides are checked against the scenarios they change before anything starts, naming the flag.
        std::vector<load::scenario> loaded;
        for (const auto& name : options.scenarios) {
            auto sc = load::load_named_scenario(*dir, name);
            if (!sc)
                return usage_error(program, sc.err().message);
            loaded.push_back(std::move(*sc));
        }
        auto notes = load::check_suite_overrides(loaded, options.override_values);
        if (!notes)
            return usage_error(program, notes.err().message);
        for (const auto& note : *notes)
            std::fprintf(stderr, "bench-suite: %s\n", note.c_str());
    }
    options.suite = suite.empty() ? "adhoc" : suite;
    if (arm_texts.empty()) {
        auto arms = load::arms_of_models(split(models));
        if (!arms)
            return usage_error(program, arms.err().message);
        options.arms = std::move(*arms);
    } else {
        if (app.count("--models") > 0)
            return usage_error(program, "give either --models or --arm, not both");
        for (const auto& text : arm_texts) {
            auto a = load::parse_arm(text);
            if (!a)
                return usage_error(program, a.err().message);
            options.arms.push_back(std::move(*a));
        }
    }
    if (auto checked = load::check_arms(options.arms); !checked)
        return usage_error(program, checked.err().message);
    auto parsed_order = load::parse_trial_order(order);
    if (!parsed_order)
        return usage_error(program, "--order: '" + order + "' is not interleaved or blocked");
    options.order = *parsed_order;
    options.seed = seed ? *seed
                        : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
                              1'000'000'007ULL;
    if (no_pin && (server_cpus || load_cpus || downstream_cpus))
        return usage_error(program, "--no-pin and a --*-cpus list contradict each other");
    if (!no_pin) {
        // Default policy (docs/suites.md): with 2+ CPUs the server under test gets its own.
        auto plan = (server_cpus || load_cpus || downstream_cpus)
                        ? execbench::cpu_plan{}
                        : execbench::default_cpu_plan(execbench::allowed_cpus());
        options.server_cpus = plan.server;
        options.load_cpus = plan.load;
        options.downstream_cpus = plan.downstream;
        for (auto [flag, text, into] : {std::tuple{"--server-cpus", &server_cpus, &options.server_cpus},
                                        std::tuple{"--load-cpus", &load_cpus, &options.load_cpus},
                                        std::tuple{"--downstream-cpus", &downstream_cpus, &options.downstream_cpus}}) {
            if (!*text)
                continue;
            auto list = execbench::parse_cpu_list(**text);
            if (!list)
                return usage_error(program, std::string(flag) + ": " + list.err().message);
            *into = std::move(*list);
        }
    }
    if (server_bin && ::access(server_bin->c_str(), X_OK) != 0)
        return usage_error(program, "--server-bin: '" + *server_bin + "' is not an executable file");
    options.server_binary = server_bin ? std::filesystem::path(*server_bin) : default_server_binary();
    options.out_dir = out_dir ? std::filesystem::path(*out_dir) : std::filesystem::path(results_dir) / options.suite;
    options.capacity_from = load::capacity_paths_in(capacity_from ? std::filesystem::path(*capacity_from)
                                                                  : std::filesystem::path(results_dir) / "capacity");
    options.start_timeout = std::chrono::milliseconds(static_cast<long long>(start_timeout * 1000));
    options.stop_timeout = std::chrono::milliseconds(static_cast<long long>(stop_timeout * 1000));

    if (options.profile) {
        if (auto why = load::perf_unavailable(options.profiling)) {
            std::fprintf(stderr, "bench-suite: --profile: %s; the suite runs without profiles\n", why->c_str());
            options.profile = false;
        }
    }

    stop_on_sigint();
    options.stop = &stop_requested;
    load::progress_printer progress(stderr);
    options.on_run_start = [&](const load::suite_progress& p) {
        if (quiet)
            return;
        progress.clear();
        std::string round = p.profiled     ? " profiled (under perf, not a result)"
                            : p.rounds > 1 ? " round " + std::to_string(p.round) + "/" + std::to_string(p.rounds)
                                           : "";
        std::fprintf(stderr, "== [%zu/%zu] %s %s%s  elapsed %s  remaining ~%s\n", p.index, p.count, p.scenario.c_str(),
                     p.arm.c_str(), round.c_str(), execbench::clock_text(p.elapsed).c_str(),
                     execbench::clock_text(p.remaining).c_str());
        std::fflush(stderr);
    };
    options.on_progress = [&](const load::progress_event& ev) {
        if (!quiet)
            progress(ev);
    };
    std::vector<table_row> table;
    std::vector<std::string> broken;
    std::vector<std::string> capacities;
    options.on_capacity_step = [&](const std::string& scenario, const std::string& arm,
                                   const load::capacity_step& step) {
        progress.clear();
        std::printf("%s %s %s\n", arm.c_str(), scenario.c_str(), load::format_step_line(step).c_str());
        std::fflush(stdout);
    };
    options.on_run_done = [&](const load::suite_entry& e, const load::run_result* r) {
        progress.clear();
        if (e.capacity_search) {  // its line, not a table row
            capacities.push_back(e.arm_name() + " " + e.scenario + ": " + e.message);
            std::printf("%s\n", capacities.back().c_str());
            std::fflush(stdout);
            return;
        }
        table.push_back(row_of(e, r));
        if (r && !r->trials.empty())
            std::printf("%s\n", load::format_summary_line(*r).c_str());
        if (r && !r->trials.empty() && !gates.empty())
            for (const auto& v : load::check_slo(gates, *r))
                if (!v.passed)
                    broken.push_back(e.arm_name() + " " + e.scenario + ": " + load::describe(v));
        if (r && r->scenario_used.scale.factor != 1)
            std::printf("%s %s: %s\n", e.arm_name().c_str(), e.scenario.c_str(),
                        load::scale_note(r->scenario_used).c_str());
        if (e.status != load::run_status::ok)
            std::printf("%s %s: %s%s%s\n", e.arm_name().c_str(), e.scenario.c_str(),
                        std::string(load::to_string(e.status)).c_str(), e.message.empty() ? "" : ": ",
                        e.message.c_str());
        std::fflush(stdout);
    };

    options.on_profile_done = [&](const load::profile_event& ev) {
        progress.clear();
        std::printf("%s\n", load::format_profile_line(ev.scenario, ev.arm, ev.capture, ev.unprofiled_rps).c_str());
        if (!ev.message.empty())
            std::printf("%s %s profile: %s\n", ev.arm.c_str(), ev.scenario.c_str(), ev.message.c_str());
        std::fflush(stdout);
    };

    std::string arm_names;
    for (const auto& a : options.arms)
        arm_names += (arm_names.empty() ? "" : ",") + a.name;
    std::fprintf(stderr, "bench-suite: %zu scenario(s) x %zu arm(s) (%s) into %s\n", options.scenarios.size(),
                 options.arms.size(), arm_names.c_str(), options.out_dir.string().c_str());
    std::fprintf(
        stderr, "bench-suite: order %s, seed %llu; cpus server '%s' load '%s' downstream '%s' ('' = not pinned)\n",
        std::string(load::to_string(options.order)).c_str(), static_cast<unsigned long long>(options.seed),
        execbench::format_cpu_list(options.server_cpus).c_str(), execbench::format_cpu_list(options.load_cpus).c_str(),
        execbench::format_cpu_list(options.downstream_cpus).c_str());
    auto entries = load::run_suite(options);
    if (!entries)
        return usage_error(program, entries.err().message);
    if (!table.empty())
        print_table(table);
    // The answer under the figures, in the words of the README headline (bench-report's code).
    if (auto written = execbench::report::read_suite(options.out_dir); written) {
        auto lines = execbench::report::verdict_summary(*written, options.scenarios);
        if (!lines.empty())
            std::printf("verdicts (ratio of medians, 95 %% bootstrap interval; a tie within %g %%):\n",
                        execbench::report::tie_margin * 100);
        for (const auto& line : lines)
            std::printf("  %s\n", line.c_str());
    } else if (!table.empty()) {  // a capacity-only suite has no fixed-rate results to compare
        std::fprintf(stderr, "bench-suite: no verdicts: %s\n", written.err().message.c_str());
    }
    if (!capacities.empty()) {
        std::printf("\ncapacity (steps interleaved across arms; %s):\n",
                    load::capacity_paths_for(options.out_dir / (options.suite + ".csv")).summary.string().c_str());
        for (const auto& c : capacities)
            std::printf("  %s\n", c.c_str());
        std::printf("\n");
    }
    std::size_t ok = 0, behind = 0, errors = 0, failed = 0, not_run = 0, bound = 0;
    std::size_t searches = 0, searches_measured = 0, searches_bound = 0, searches_failed = 0;
    for (const auto& e : *entries) {
        if (e.capacity_search) {
            ++searches;
            searches_measured += e.measured ? 1 : 0;
            searches_bound += e.lower_bound ? 1 : 0;
            searches_failed += e.status == load::run_status::failed ? 1 : 0;
            failed += e.status == load::run_status::failed ? 1 : 0;  // for the exit status
            continue;
        }
        switch (e.status) {
        case load::run_status::ok: ++ok; break;
        case load::run_status::behind: ++behind; break;
        case load::run_status::errors: ++errors; break;
        case load::run_status::failed: ++failed; break;
        case load::run_status::not_run: ++not_run; break;
        case load::run_status::generator_bound: ++bound; break;
        }
    }
    std::string what;
    if (entries->size() > searches)
        what = std::to_string(entries->size() - searches) + " run(s): " + std::to_string(ok) + " ok, " +
               std::to_string(behind) + " behind (unsent requests), " + std::to_string(errors) +
               " with request errors, " + std::to_string(failed - searches_failed) + " failed, " +
               std::to_string(not_run) + " not run, " + std::to_string(bound) + " generator-bound (not results)";
    if (searches > 0)
        what += (what.empty() ? "" : "; ") + std::to_string(searches) + " capacity search(es): " +
                std::to_string(searches_measured) + " measured, " + std::to_string(searches_bound) +
                " lower bound(s) only, " + std::to_string(searches - searches_measured - searches_bound) +
                " other (below the lowest rate, or not measured)";
    std::printf("bench-suite %s: %s; order %s, seed %llu%s\n", options.suite.c_str(), what.c_str(),
                std::string(load::to_string(options.order)).c_str(), static_cast<unsigned long long>(options.seed),
                stop_requested.load() ? " (stopped early)" : "");
    for (const auto& b : broken)
        std::fprintf(stderr, "bench-suite: SLO broken: %s\n", b.c_str());
    if (failed > 0 || stop_requested.load())
        return exit_run_errors;
    return broken.empty() ? exit_ok : exit_slo;
}
