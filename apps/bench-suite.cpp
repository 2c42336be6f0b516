// bench-suite: runs a suite (or a list) of scenarios under each model, a fresh bench-server per run.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/profile/profiler.hpp"
#include "execbench/load/record/slo.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/machine_context.hpp"
#include "execbench/load/run/progress.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/server_process.hpp"
#include "execbench/load/suite/study.hpp"
#include "execbench/load/suite/suite.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/page/console.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/run_table.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <memory>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <tuple>

#include <unistd.h>

namespace {

using namespace execbench::apps;
constexpr std::string_view program = "bench-suite";

/// The journal this invocation made (empty: it found one), removed with the folder it made when nothing was filed:
/// a run stopped before its first result leaves nothing behind, as before journals.
char journal_made_for_run[4096] = {};
/// A run was filed (on_run_done ran), so the journal stays for a resume even if nothing finished.
std::atomic<bool> filed_anything{false};

/// What a second stop signal must also do (async-signal-safe): stop the servers this process started, and remove a
/// journal it made and filed nothing beside.
void end_with_suite() noexcept
{
    execbench::load::kill_started_servers();
    if (!filed_anything.load() && journal_made_for_run[0] != '\0')
        ::unlink(journal_made_for_run);
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

/// bench-suite's command line as given, before it becomes suite options.
struct flags {
    std::string suite;
    std::string scenario_list;
    std::string models = execbench::joined_model_names(",");
    std::vector<std::string> arm_texts;
    std::string order = "interleaved";
    std::optional<std::uint64_t> seed;
    std::optional<std::string> server_cpus, load_cpus, downstream_cpus;
    bool no_pin = false;
    std::optional<std::string> scenarios_dir;
    std::optional<std::string> server_bin;
    std::string results_dir = "results";
    std::optional<std::string> out_dir;
    std::optional<std::string> capacity_from;
    std::optional<std::string> slo_text;
    bool quiet = false;
    double start_timeout = 20, stop_timeout = 15;
    execbench::load::journal_options folder;  ///< --fresh, --rerun, --allow-mixed
    bool plan = false;
    std::optional<std::string> study;
    std::vector<std::string> reuse_from;
};

void add_flags(CLI::App& app, flags& f, execbench::load::suite_options& options)
{
    app.add_option("--suite", f.suite, "Suite name: runs every scenario listing it (and names the results folder)");
    app.add_option("--scenarios", f.scenario_list,
                   "Comma-separated scenario names: alone, or narrowing --suite to those of its scenarios");
    app.add_option("--models", f.models, "Comma-separated models, one arm each named after its model")
        ->capture_default_str();
    app.add_option("--arm", f.arm_texts,
                   "NAME=MODEL[:OPTION=VALUE,...], NAME=cmd:'COMMAND {port}' (your server, started for each trial) or "
                   "NAME=url:http://127.0.0.1:PORT (running already); repeatable; replaces the default models, adds "
                   "to those --models names (docs/own-server.md)")
        ->allow_extra_args(false);
    app.add_option("--ready-path", options.ready_path,
                   "A cmd: arm is ready when GET PATH answers 2xx (default: when its port accepts a connection)");
    app.add_option("--order", f.order, "interleaved (rounds of one trial per arm, shuffled) or blocked")
        ->capture_default_str();
    app.add_option("--seed", f.seed, "Seed of the interleaved order (default: from the clock; printed and recorded)");
    app.add_option("--server-cpus", f.server_cpus, "CPUs of the server under test, e.g. 0 or 0-3 (default: see docs)");
    app.add_option("--load-cpus", f.load_cpus, "CPUs of the load generator (this process)");
    app.add_option("--downstream-cpus", f.downstream_cpus, "CPUs of a separate downstream server");
    app.add_flag("--no-pin", f.no_pin, "Pin nothing (the default splits the CPUs between server and generator)");
    app.add_option("--scenarios-dir", f.scenarios_dir,
                   "Scenario directory (default: ./scenarios, then the installed one)");
    app.add_option("--server-bin", f.server_bin, "bench-server binary (default: the one beside this binary)");
    app.add_option("--results-dir", f.results_dir, "Results root; a suite writes to <root>/<suite>/")
        ->capture_default_str();
    app.add_option("--out,--out-dir", f.out_dir, "Exact results folder (overrides --results-dir/<suite>)");
    app.add_option("--capacity-from", f.capacity_from,
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
    app.add_option("--time-scale", options.override_values.time_scale,
                   "Run every closed, open or ramp scenario's timeline in F of its length (0 < F <= 1), labelled: "
                   "a compressed run (docs/methodology.md#compressed-runs)");
    app.add_flag("--fit-to-limits", options.fit_to_limits,
                 "Run a scenario beyond the open-file limits at the largest scale that fits (labelled) instead of "
                 "not at all");
    app.add_option("--threads", options.threads, "Load-generator threads")
        ->check(integer_in(1, 1024, "a number of threads"))
        ->capture_default_str();
    app.add_option("--start-timeout", f.start_timeout,
                   "Seconds to wait for a server to be ready (its /health; a cmd: arm, its port or --ready-path)")
        ->transform(seconds_in(0.1, 3600))
        ->capture_default_str();
    app.add_option("--stop-timeout", f.stop_timeout, "Seconds between SIGTERM and SIGKILL")
        ->transform(seconds_in(0.1, 3600))
        ->capture_default_str();
    app.add_option("--slo", f.slo_text,
                   "Gates every run must pass, e.g. 'p99<300ms,errors=0'; exit 3 when one is broken");
    app.add_flag("--fresh", f.folder.fresh,
                 "Start the results folder over: remove the suite's files and journal first (default: resume what "
                 "a cut-off run left, skipping what its journal holds as finished)");
    app.add_flag("--rerun", f.folder.rerun,
                 "Run the selected scenarios x arms again although the journal holds them as finished (their rows "
                 "follow the old ones; the report shows the latest)");
    app.add_flag("--allow-mixed", f.folder.allow_mixed,
                 "Resume a folder that other sources started (a different source digest); the journal records it");
    app.add_option("--reuse-from", f.reuse_from,
                   "A results folder of an earlier suite (repeatable): a scenario x arm it holds finished under the "
                   "same settings and sources is copied from it, not run (docs/suites.md, reuse)")
        ->allow_extra_args(false);
    app.add_option("--study", f.study,
                   "A study file (e.g. studies/full.json): its suites in order, each resumed or run into "
                   "<results-dir>/<folder>, with the study's plan and ETA");
    app.add_flag("--plan", f.plan,
                 "Print each scenario's runs and estimated time (from the files, and the journal's measured times "
                 "where the folder has them) and run nothing");
    app.add_flag("--quiet", f.quiet, "No per-round progress lines or progress bar (the results table still prints)");
}

/// The scenarios and their overrides, checked against each other before anything starts (errors name the flag).
execbench::result<void> configure_scenarios(const flags& f, execbench::load::suite_options& options)
{
    namespace load = execbench::load;
    auto dir = load::find_scenario_dir(f.scenarios_dir);
    if (!dir)
        return dir.err();
    auto selected = load::select_scenarios(*dir, f.suite, execbench::split_list(f.scenario_list));
    if (!selected)
        return selected.err();
    options.scenarios = std::move(*selected);
    auto notes = load::check_suite_overrides(options.scenarios, options.override_values);
    if (!notes)
        return notes.err();
    for (const auto& note : *notes)
        std::fprintf(stderr, "bench-suite: %s\n", note.c_str());
    options.suite = f.suite.empty() ? "adhoc" : f.suite;
    return {};
}

/// The arms (--models, --arm, or both: the models' arms first) and the order their trials run in.
execbench::result<void> configure_arms(const CLI::App& app, const flags& f, execbench::load::suite_options& options)
{
    namespace load = execbench::load;
    // --arm alone replaces the default models; with --models given too, it adds to them (your server beside them).
    if (f.arm_texts.empty() || app.count("--models") > 0) {
        auto arms = load::arms_of_models(execbench::split_list(f.models));
        if (!arms)
            return arms.err();
        options.arms = std::move(*arms);
    }
    for (const auto& text : f.arm_texts) {
        auto a = load::parse_arm(text);
        if (!a)
            return a.err();
        options.arms.push_back(std::move(*a));
    }
    if (auto checked = load::check_arms(options.arms); !checked)
        return checked.err();
    auto parsed_order = load::parse_trial_order(f.order);
    if (!parsed_order)
        return execbench::fail("--order: '" + f.order + "' is not interleaved or blocked");
    options.order = *parsed_order;
    options.seed = f.seed ? *f.seed
                          : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
                                1'000'000'007ULL;
    return {};
}

/// Which CPUs the server, the generator and a downstream run on: the flags, or the default split (docs/suites.md).
execbench::result<void> configure_cpus(const flags& f, execbench::load::suite_options& options)
{
    bool listed = f.server_cpus || f.load_cpus || f.downstream_cpus;
    if (f.no_pin && listed)
        return execbench::fail("--no-pin and a --*-cpus list contradict each other");
    if (f.no_pin)
        return {};
    // With 2+ CPUs the server under test gets its own.
    auto plan = listed ? execbench::cpu_plan{} : execbench::default_cpu_plan(execbench::allowed_cpus());
    options.server_cpus = plan.server;
    options.load_cpus = plan.load;
    options.downstream_cpus = plan.downstream;
    for (auto [flag, text, into] : {std::tuple{"--server-cpus", &f.server_cpus, &options.server_cpus},
                                    std::tuple{"--load-cpus", &f.load_cpus, &options.load_cpus},
                                    std::tuple{"--downstream-cpus", &f.downstream_cpus, &options.downstream_cpus}}) {
        if (!*text)
            continue;
        auto list = execbench::parse_cpu_list(**text);
        if (!list)
            return execbench::fail(std::string(flag) + ": " + list.err().message);
        *into = std::move(*list);
    }
    return {};
}

/// The flags as suite options: scenarios, arms, CPUs, binaries, folders and deadlines.
execbench::result<void> configure(const CLI::App& app, const flags& f, execbench::load::suite_options& options)
{
    namespace load = execbench::load;
    if (f.suite.empty() && f.scenario_list.empty())
        return execbench::fail("give --suite NAME or --scenarios a,b,c");
    if (auto done = configure_scenarios(f, options); !done)
        return done;
    if (auto done = configure_arms(app, f, options); !done)
        return done;
    if (auto done = configure_cpus(f, options); !done)
        return done;
    if (!options.ready_path.empty() && !options.ready_path.starts_with('/'))
        return execbench::fail("--ready-path: '" + options.ready_path + "' must start with '/'");
    for (const auto& arm : options.arms)
        if (auto running = load::check_running(arm, options.ready_path); !running)
            return running;
    if (f.server_bin && ::access(f.server_bin->c_str(), X_OK) != 0)
        return execbench::fail("--server-bin: '" + *f.server_bin + "' is not an executable file");
    options.server_binary = f.server_bin ? std::filesystem::path(*f.server_bin) : default_server_binary();
    std::filesystem::path root = f.results_dir;
    options.out_dir = f.out_dir ? std::filesystem::path(*f.out_dir) : root / options.suite;
    options.capacity_from =
        load::capacity_paths_in(f.capacity_from ? std::filesystem::path(*f.capacity_from) : root / "capacity");
    if (!f.reuse_from.empty() && f.folder.rerun)
        return execbench::fail("--reuse-from and --rerun contradict each other: --rerun runs pieces again, "
                               "--reuse-from copies them");
    for (const auto& dir : f.reuse_from) {
        std::filesystem::path p(dir);
        auto name = (p.has_filename() ? p : p.parent_path()).filename().string();
        options.reuse_from.push_back({p, name, {}, {}});
    }
    options.start_timeout = std::chrono::milliseconds(static_cast<long long>(f.start_timeout * 1000));
    options.stop_timeout = std::chrono::milliseconds(static_cast<long long>(f.stop_timeout * 1000));
    if (options.profile)
        if (auto why = load::perf_unavailable(options.profiling)) {
            std::fprintf(stderr, "bench-suite: --profile: %s; the suite runs without profiles\n", why->c_str());
            options.profile = false;
        }
    return {};
}

/// What bench-suite prints while a suite runs, and what it keeps for the end: the table, capacities, broken SLOs.
class reporter {
public:
    reporter(std::vector<execbench::load::slo_gate> gates, bool quiet) : gates_(std::move(gates)), quiet_(quiet) {}

    /// Prints progress, each run's summary and each capacity step and profile as they come.
    void attach(execbench::load::suite_options& options)
    {
        namespace load = execbench::load;
        options.on_run_start = [this](const load::suite_progress& p) { run_started(p); };
        options.on_progress = [this](const load::progress_event& ev) {
            if (!quiet_)
                progress_(ev);
        };
        options.on_capacity_step = [this](const std::string& scenario, const std::string& arm,
                                          const load::capacity_step& step) {
            progress_.clear();
            std::printf("%s %s %s\n", arm.c_str(), scenario.c_str(), load::format_step_line(step).c_str());
            std::fflush(stdout);
        };
        options.on_run_done = [this](const load::suite_entry& e, const load::run_record* r) { run_done(e, r); };
        options.on_profile_done = [this](const load::profile_event& ev) {
            progress_.clear();
            std::printf("%s\n", load::format_profile_line(ev.scenario, ev.arm, ev.capture, ev.unprofiled_rps).c_str());
            if (!ev.message.empty())
                std::printf("%s %s profile: %s\n", ev.arm.c_str(), ev.scenario.c_str(), ev.message.c_str());
            std::fflush(stdout);
        };
    }

    /// The table, the verdicts in the README headline's words, the capacities and the suite's closing line; returns
    /// the exit status.
    int finish(const execbench::load::suite_options& options, const std::vector<execbench::load::suite_entry>& entries)
    {
        namespace load = execbench::load;
        if (!table_.empty())
            std::printf("\n%s\n", execbench::report::to_console(table_.to_page()).c_str());
        print_verdicts(options);
        if (!capacities_.empty()) {
            std::printf("\ncapacity (steps interleaved across arms; %s):\n",
                        load::capacity_paths_for(options.out_dir / (options.suite + ".csv")).summary.string().c_str());
            for (const auto& c : capacities_)
                std::printf("  %s\n", c.c_str());
            std::printf("\n");
        }
        auto outcome = load::tally(entries);
        std::printf("bench-suite %s: %s; order %s, seed %llu%s\n", options.suite.c_str(), outcome.text().c_str(),
                    std::string(load::to_string(options.order)).c_str(), static_cast<unsigned long long>(options.seed),
                    stop_requested.load() ? " (stopped early)" : "");
        for (const auto& b : broken_)
            std::fprintf(stderr, "bench-suite: SLO broken: %s\n", b.c_str());
        if (outcome.any_failed() || stop_requested.load())
            return exit_run_errors;
        return broken_.empty() ? exit_ok : exit_slo;
    }

private:
    void run_started(const execbench::load::suite_progress& p)
    {
        if (quiet_)
            return;
        progress_.clear();
        std::string round = p.profiled     ? " profiled (under perf, not a result)"
                            : p.rounds > 1 ? " round " + std::to_string(p.round) + "/" + std::to_string(p.rounds)
                                           : "";
        std::fprintf(stderr, "== [%zu/%zu] %s %s%s  elapsed %s  remaining ~%s\n", p.index, p.count, p.scenario.c_str(),
                     p.arm.c_str(), round.c_str(), execbench::clock_text(p.elapsed).c_str(),
                     execbench::clock_text(p.remaining).c_str());
        std::fflush(stderr);
    }

    void run_done(const execbench::load::suite_entry& e, const execbench::load::run_record* r)
    {
        namespace load = execbench::load;
        progress_.clear();
        if (e.capacity_search) {  // its line, not a table row
            capacities_.push_back(e.arm_name() + " " + e.scenario + ": " + e.message);
            std::printf("%s\n", capacities_.back().c_str());
            std::fflush(stdout);
            return;
        }
        table_.add(e, r);
        if (r && !r->trials.empty()) {
            std::printf("%s\n", load::format_summary_line(*r).c_str());
            for (const auto& v : load::check_slo(gates_, *r))
                if (!v.passed)
                    broken_.push_back(e.arm_name() + " " + e.scenario + ": " + load::describe(v));
        }
        if (r && r->scenario_used.scale.factor != 1)
            std::printf("%s %s: %s\n", e.arm_name().c_str(), e.scenario.c_str(),
                        load::scale_note(r->scenario_used).c_str());
        if (r && r->scenario_used.time_scale.factor != 1)
            std::printf("%s %s: %s\n", e.arm_name().c_str(), e.scenario.c_str(),
                        load::time_note(r->scenario_used).c_str());
        if (e.status != load::run_status::ok)
            std::printf("%s %s: %s%s%s\n", e.arm_name().c_str(), e.scenario.c_str(),
                        std::string(load::to_string(e.status)).c_str(), e.message.empty() ? "" : ": ",
                        e.message.c_str());
        std::fflush(stdout);
    }

    /// The answer under the figures, in the words of the README headline (bench-report's code).
    void print_verdicts(const execbench::load::suite_options& options) const
    {
        auto written = execbench::report::read_suite(options.out_dir);
        if (!written) {
            if (!table_.empty())  // a capacity-only suite has no fixed-rate results to compare
                std::fprintf(stderr, "bench-suite: no verdicts: %s\n", written.err().message.c_str());
            return;
        }
        std::vector<std::string> names;
        for (const auto& sc : options.scenarios)
            names.push_back(sc.name);
        std::printf("%s", execbench::report::to_console(execbench::report::verdicts_page(*written, names)).c_str());
    }

    std::vector<execbench::load::slo_gate> gates_;
    bool quiet_;
    execbench::load::progress_printer progress_{stderr};
    execbench::report::run_table table_;
    std::vector<std::string> broken_;
    std::vector<std::string> capacities_;
};

/// The command line as a shell would take it back: each argument quoted when it holds more than plain characters.
std::string command_text(int argc, char** argv)
{
    std::string out;
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                        "-_=.,/:@%+") == std::string_view::npos;
        if (!out.empty())
            out += ' ';
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char ch : a)
            out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        out += '\'';
    }
    return out;
}

/// `--plan`: each scenario's runs left and their estimate, then the suite's.
void print_suite_plan(const execbench::load::suite_options& options, const execbench::load::suite_plan& plan)
{
    namespace load = execbench::load;
    std::printf("bench-suite %s: plan for %s (%zu arm(s), order %s)\n", options.suite.c_str(),
                options.out_dir.string().c_str(), options.arms.size(),
                std::string(load::to_string(options.order)).c_str());
    int width = 48;
    for (const auto& p : plan.scenarios)
        width = std::max(width, static_cast<int>(p.scenario.size()));
    std::printf("%-*s %5s %6s %5s %10s  %s\n", width, "scenario", "arms", "rounds", "runs", "estimate", "basis");
    for (const auto& p : plan.scenarios) {
        if (!p.not_runnable.empty()) {
            // The whole reason is in the ledger when it is not run; here, what would make it run.
            std::printf("%-*s %5zu %6s %5s %10s  not run: beyond the open-file limits%s\n", width,
                        p.scenario.c_str(), p.arms, "-", "0", "-",
                        p.scale.empty() ? "" : (" (--fit-to-limits: scale " + p.scale + ")").c_str());
            continue;
        }
        std::string what = p.capacity ? "search" : std::to_string(p.rounds);
        std::string basis = p.runs > 0                         ? p.basis
                            : p.reused > 0 && p.arms_left == 0 ? "reused (copied from an earlier folder)"
                                                               : "finished (journal)";
        if (p.runs > 0 && p.reused > 0)
            basis += ", " + std::to_string(p.reused) + " piece(s) reused";
        if (!p.scale.empty())
            basis += ", scale " + p.scale;
        if (!p.time_scale.empty())
            basis += ", time " + p.time_scale;
        std::printf("%-*s %5zu %6s %5zu %10s  %s\n", width, p.scenario.c_str(), p.arms_left, what.c_str(), p.runs,
                    p.runs == 0 ? "-" : load::format_length(p.estimate).c_str(), basis.c_str());
    }
    std::printf("bench-suite %s: %zu server run(s) left, about %s", options.suite.c_str(), plan.runs,
                load::format_length(plan.total).c_str());
    if (plan.done > 0)
        std::printf("; %zu scenario x arm piece(s) finished before (journal)", plan.done);
    if (plan.reused > 0)
        std::printf("; %zu piece(s) reused from %s (copied, not run)", plan.reused,
                    execbench::join(plan.reused_from, ", ").c_str());
    std::printf("\n");
}

/// The suite's first lines: what runs, where, in which order and on which CPUs.
void print_plan(const execbench::load::suite_options& options)
{
    namespace load = execbench::load;
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
}


/// One suite as bench-suite runs it: its command line, parsed and configured.
struct invocation {
    CLI::App app{"bench-suite: runs scenarios under each model, a fresh bench-server per run, into results/<suite>/"};
    flags f;
    execbench::load::suite_options options;
    std::vector<execbench::load::slo_gate> gates;
    std::string command;
};

/// Parses `args` (the program's name first) into `inv` and configures it; the exit code when it must stop there.
std::optional<int> set_up(invocation& inv, std::vector<std::string> args)
{
    namespace load = execbench::load;
    inv.app.set_version_flag("--version", execbench::version_string());
    add_flags(inv.app, inv.f, inv.options);
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    if (auto code = parse_command_line(inv.app, program, static_cast<int>(argv.size()), argv.data()))
        return code;
    inv.command = command_text(static_cast<int>(argv.size()), argv.data());
    if (inv.f.study)
        return std::nullopt;  // the study's steps are set up one by one
    if (inv.f.slo_text) {
        auto parsed = load::parse_slo(*inv.f.slo_text);
        if (!parsed)
            return usage_error(program, parsed.err().message);
        inv.gates = std::move(*parsed);
    }
    if (auto configured = configure(inv.app, inv.f, inv.options); !configured)
        return usage_error(program, configured.err().message);
    inv.f.folder.source_digest = execbench::source_digest();
    inv.f.folder.git_revision = execbench::git_revision();
    inv.f.folder.machine = execbench::load::machine_identity(execbench::load::collect_context());
    inv.f.folder.command = inv.command;
    return std::nullopt;
}

/// A --reuse-from folder must be there unless a study's earlier step will write it.
execbench::result<void> check_reuse_sources(const execbench::load::suite_options& options)
{
    for (const auto& src : options.reuse_from)
        if (src.study.empty() && !std::filesystem::is_directory(src.dir))
            return execbench::fail("--reuse-from: " + src.dir.string() + " is no folder");
    return {};
}

/// The plan of a set-up invocation, read from its files and its folder's journal (and, into `finished`, whether
/// that journal's suite ended); nothing is changed.
execbench::result<execbench::load::suite_plan> plan_of(invocation& inv, bool* finished = nullptr)
{
    namespace load = execbench::load;
    if (auto ok = check_reuse_sources(inv.options); !ok)
        return ok.err();
    auto options = inv.f.folder;
    options.read_only = true;
    auto folder = load::journal::open(inv.options.out_dir, inv.options.suite, options);
    if (!folder)
        return folder.err();
    if (finished)
        *finished = folder->finished();
    auto suite = inv.options;
    suite.record = &*folder;
    return load::plan_suite(suite);
}

/// Says that `options`' folder holds every piece it names; the exit code (0).
int nothing_left(const execbench::load::suite_options& options)
{
    std::printf("bench-suite %s: nothing left to run: every selected scenario x arm is finished in %s (its "
                "journal); --rerun runs them again, --fresh starts the folder over\n",
                options.suite.c_str(), options.out_dir.string().c_str());
    return 0;
}

/// The folder's suite ended there and the invocation names nothing it lacks: it is to be left as it is, its
/// journal untouched (a study run again must not add a start and an end line to every finished step).
bool finished_as_asked(invocation& inv)
{
    namespace load = execbench::load;
    if (inv.f.folder.fresh || inv.f.folder.rerun ||
        !std::filesystem::exists(load::journal::path_for(inv.options.out_dir, inv.options.suite)))
        return false;
    bool finished = false;
    auto plan = plan_of(inv, &finished);
    return plan && finished && plan->runs == 0 && plan->reused == 0;
}

/// Runs a set-up invocation: resumes or starts its folder, runs what is left, prints its table; the exit code.
int run_invocation(invocation& inv)
{
    namespace load = execbench::load;
    auto& f = inv.f;
    auto& options = inv.options;
    if (f.plan) {
        auto plan = plan_of(inv);
        if (!plan)
            return usage_error(program, plan.err().message);
        print_suite_plan(options, *plan);
        return 0;
    }
    if (auto ok = check_reuse_sources(options); !ok)
        return usage_error(program, ok.err().message);
    if (finished_as_asked(inv))
        return nothing_left(options);
    const auto journal_file = load::journal::path_for(options.out_dir, options.suite);
    const bool journal_new = !std::filesystem::exists(journal_file) || f.folder.fresh;
    auto folder = load::journal::open(options.out_dir, options.suite, f.folder);
    if (!folder)
        return usage_error(program, folder.err().message);
    for (const auto& note : folder->notes())
        std::fprintf(stderr, "bench-suite: %s\n", note.c_str());
    if (folder->resumed()) {
        // The interleaved order goes on as it began, unless --seed says otherwise.
        if (!f.seed && folder->first_seed())
            options.seed = *folder->first_seed();
        std::fprintf(stderr, "bench-suite: resuming %s: %zu finished piece(s) in its journal are skipped (--fresh "
                     "starts over)\n", options.out_dir.string().c_str(), folder->done_count());
    }
    options.record = &*folder;
    journal_made_for_run[0] = '\0';
    filed_anything.store(false);
    if (journal_new && journal_file.string().size() < sizeof journal_made_for_run)
        std::memcpy(journal_made_for_run, journal_file.c_str(), journal_file.string().size() + 1);

    folder_made_for_run[0] = '\0';
    remove_if_left_empty(options.out_dir);
    options.stop = &stop_requested;
    reporter out(std::move(inv.gates), f.quiet);
    out.attach(options);
    options.on_reuse = [](const load::journal_key& key, const std::string& from, const std::string& why) {
        if (from.empty()) {
            std::fprintf(stderr, "bench-suite: %s x %s: not copied (%s); it runs\n", key.scenario.c_str(),
                         key.arm.c_str(), why.c_str());
            return;
        }
        filed_anything.store(true);  // the copied rows stay with their journal line
        std::fprintf(stderr, "bench-suite: %s x %s (%s): copied from %s, which ran it under the same settings; not "
                     "run again\n", key.scenario.c_str(), key.arm.c_str(), std::string(load::to_string(key.kind)).c_str(),
                     from.c_str());
    };
    options.on_run_done = [report = std::move(options.on_run_done)](const load::suite_entry& e,
                                                                    const load::run_record* r) {
        filed_anything.store(true);
        if (report)
            report(e, r);
    };
    print_plan(options);
    auto entries = load::run_suite(options);
    if (!filed_anything.load() && journal_made_for_run[0] != '\0')
        std::filesystem::remove(journal_file);
    remove_folder_left_empty();
    if (!entries)
        return usage_error(program, entries.err().message);
    if (entries->empty() && folder->resumed() && !stop_requested)
        return nothing_left(options);
    return out.finish(options, *entries);
}

/// `--study FILE`: every step set up and checked before anything runs, the study's plan, then each suite in turn
/// (resumed where its journal says so) with the study's ETA before each; the worst exit code of the steps.
int run_study(const invocation& top, const std::vector<std::string>& args)
{
    namespace load = execbench::load;
    namespace fs = std::filesystem;
    auto read = load::read_study(*top.f.study);
    if (!read)
        return usage_error(program, read.err().message);
    const auto& st = *read;
    // What every step shares: the command line without --study and --plan (the results root, the binaries, ...).
    std::vector<std::string> shared;
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--study") {
            ++i;
            continue;
        }
        if (args[i].starts_with("--study=") || args[i] == "--plan")
            continue;
        shared.push_back(args[i]);
    }
    std::vector<std::unique_ptr<invocation>> steps;
    std::vector<load::suite_plan> plans;
    std::vector<fs::path> written;
    for (const auto& step : st.steps) {
        std::vector<std::string> step_args{args[0], "--suite", step.suite, "--out",
                                           (fs::path(top.f.results_dir) / step.folder_name()).string()};
        // "{results}" in a step's argument is the study's results root, so a step may read an earlier step's folder
        // (tls-storm reads the tls step's capacities) wherever --results-dir puts the study.
        for (auto a : step.args) {
            for (auto at = a.find("{results}"); at != std::string::npos; at = a.find("{results}", at))
                a.replace(at, 9, top.f.results_dir);
            step_args.push_back(std::move(a));
        }
        step_args.insert(step_args.end(), shared.begin(), shared.end());
        auto inv = std::make_unique<invocation>();
        if (auto code = set_up(*inv, step_args)) {
            std::fprintf(stderr, "bench-suite: study %s: step %s (above) cannot run as its file gives it\n",
                         st.name.c_str(), step.folder_name().c_str());
            return *code;
        }
        // Capacity before the rows that read it: a step whose rates come from capacities needs an earlier step
        // (or a folder on disk) to have searched them.
        const auto& o = inv->options;
        bool reads_capacity = std::any_of(o.scenarios.begin(), o.scenarios.end(),
                                          [](const load::scenario& s) { return load::takes_rate_from_capacity(s); });
        auto capacity_folder = o.capacity_from.summary.parent_path();
        bool searched_before = std::any_of(written.begin(), written.end(), [&](const fs::path& p) {
            return fs::weakly_canonical(p) == fs::weakly_canonical(capacity_folder);
        });
        if (reads_capacity && !searched_before)
            return usage_error(program, "study " + st.name + ": " + step.folder_name() +
                                            " takes rates from the capacities in " + capacity_folder.string() +
                                            ", which no earlier step of the study writes: put the capacity suite first");
        written.push_back(o.out_dir);
        // The folders it reuses (--reuse-from) are earlier steps' (read_study checked): what those will hold counts
        // in the plan. --rerun runs every piece again, copied or not.
        for (std::size_t j = 0; j < steps.size() && !top.f.folder.rerun; ++j) {
            const auto& name = st.steps[j].folder_name();
            if (std::find(step.reuse.begin(), step.reuse.end(), name) == step.reuse.end())
                continue;
            auto pieces = load::suite_piece_settings(steps[j]->options);
            if (!pieces)
                return usage_error(program, "study " + st.name + ", " + name + ": " + pieces.err().message);
            inv->options.reuse_from.push_back({steps[j]->options.out_dir, name, st.name, std::move(*pieces)});
        }
        auto plan = plan_of(*inv);
        if (!plan)
            return usage_error(program, "study " + st.name + ", " + step.folder_name() + ": " + plan.err().message);
        plans.push_back(std::move(*plan));
        steps.push_back(std::move(inv));
    }
    load::duration total{};
    std::size_t runs = 0, reused = 0;
    std::printf("bench-suite study %s: %zu suite(s)%s%s\n", st.name.c_str(), st.steps.size(),
                st.about.empty() ? "" : ": ", st.about.c_str());
    std::printf("%-28s %-20s %6s %10s %12s  %s\n", "folder", "suite", "runs", "estimate", "cumulative", "reused");
    for (std::size_t i = 0; i < steps.size(); ++i) {
        total += plans[i].total;
        runs += plans[i].runs;
        reused += plans[i].reused;
        auto from = plans[i].reused == 0 ? std::string("-")
                                         : std::to_string(plans[i].reused) + " piece(s) from " +
                                               execbench::join(plans[i].reused_from, ", ");
        std::printf("%-28s %-20s %6zu %10s %12s  %s\n", st.steps[i].folder_name().c_str(), st.steps[i].suite.c_str(),
                    plans[i].runs, plans[i].runs == 0 ? "finished" : load::format_length(plans[i].total).c_str(),
                    load::format_length(total).c_str(), from.c_str());
    }
    std::printf("bench-suite study %s: %zu server run(s) left, about %s", st.name.c_str(), runs,
                load::format_length(total).c_str());
    if (reused > 0)
        std::printf("; %zu piece(s) copied from earlier steps' folders instead of run (\"reuse\")", reused);
    std::printf("\n");
    if (top.f.plan)
        return 0;
    int worst = 0;
    auto left = total;
    for (std::size_t i = 0; i < steps.size() && !stop_requested; ++i) {
        auto eta = std::chrono::system_clock::now() + left;
        auto eta_t = std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(eta));
        char at[32];
        std::strftime(at, sizeof at, "%H:%M UTC", std::gmtime(&eta_t));
        std::printf("bench-suite study %s: suite %zu/%zu, %s: plan %s; study left %s (ends about %s)\n",
                    st.name.c_str(), i + 1, steps.size(), st.steps[i].folder_name().c_str(),
                    load::format_length(plans[i].total).c_str(), load::format_length(left).c_str(), at);
        auto started = std::chrono::steady_clock::now();
        worst = std::max(worst, run_invocation(*steps[i]));
        auto took = std::chrono::steady_clock::now() - started;
        left = left > plans[i].total ? left - plans[i].total : load::duration{};
        auto took_text = load::format_length(std::chrono::duration_cast<load::duration>(took));
        if (stop_requested) {
            // A stopped suite's time says nothing about its plan: comparing them would print a large "under plan".
            std::printf("bench-suite study %s: %s stopped after %s of its plan's %s; the same command resumes it\n",
                        st.name.c_str(), st.steps[i].folder_name().c_str(), took_text.c_str(),
                        load::format_length(plans[i].total).c_str());
        } else if (plans[i].total > load::duration{}) {
            double off = 100.0 * (std::chrono::duration<double>(took).count() /
                                      std::chrono::duration<double>(plans[i].total).count() -
                                  1);
            std::printf("bench-suite study %s: %s took %s (plan %s, %+.0f %%)\n", st.name.c_str(),
                        st.steps[i].folder_name().c_str(), took_text.c_str(),
                        load::format_length(plans[i].total).c_str(), off);
        }
    }
    return stop_requested ? std::max(worst, 1) : worst;
}

}  // namespace

int main(int argc, char** argv)
{
    // A suite runs for minutes to hours: its lines reach a log file (`> run.log`, `tail -f`) as they are printed,
    // not one 4 KB block later.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::vector<std::string> args(argv, argv + argc);
    invocation top;
    if (auto code = set_up(top, args))
        return *code;
    end_with_process = end_with_suite;
    stop_on_sigint();
    if (top.f.study) {
        if (!top.f.suite.empty() || !top.f.scenario_list.empty())
            return usage_error(program, "--study runs the suites its file lists: give no --suite or --scenarios");
        return run_study(top, args);
    }
    return run_invocation(top);
}
