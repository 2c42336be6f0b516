// bench-load: parses options and runs a scenario through the execbench load library.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/load/distributed/processes.hpp"
#include "execbench/load/distributed/shard.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/run/capacity.hpp"
#include "execbench/load/run/progress.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/run/slo.hpp"
#include "execbench/load/scenario/overrides.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/session/session.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <utility>

namespace {

constexpr std::string_view program = "bench-load";

// A session's end is bench-load's exit status, as the README's "Exit codes" lists them.
static_assert(static_cast<int>(execbench::load::run_exit::ok) == execbench::apps::exit_ok);
static_assert(static_cast<int>(execbench::load::run_exit::errors) == execbench::apps::exit_run_errors);
static_assert(static_cast<int>(execbench::load::run_exit::slo_broken) == execbench::apps::exit_slo);
static_assert(static_cast<int>(execbench::load::run_exit::behind) == execbench::apps::exit_behind);

/// Flags of wrk, wrk2, hey, oha and k6 that bench-load spells otherwise or lacks, with what to write instead.
const std::vector<execbench::apps::foreign_flag> foreign_flags = {
    {"-s", "is wrk's Lua script; bench-load has none: --scenario NAME, or --path, --method, --header, --body-file"},
    {"--script", "is wrk's Lua script; bench-load has none: --scenario NAME, or --path, --method, --header, "
                 "--body-file"},
    {"-q", "is hey's rate per worker (oha's total); bench-load takes the total: --rate N"},
    {"--no-tui", "is oha's; bench-load draws no TUI (--quiet: no progress output either)"},
    {"-j", "is oha's JSON output; bench-load's is --format json"},
    {"--json", "is oha's JSON output; bench-load's is --format json"},
    {"-o", "is hey's output; bench-load's is --format json on standard output, or --out FILE.csv for CSV files"},
    {"-D", "is hey's body file; bench-load's is --body-file FILE"},
    {"-T", "is hey's content type; bench-load's is --header 'Content-Type: TYPE'"},
    {"-A", "is hey's Accept header; bench-load's is --header 'Accept: TYPE'"},
    {"--rps", "is --rate N here"},
    {"--vus", "is k6's; bench-load's is --connections N (a closed loop), or --shape ramp with --connections as the "
              "peak users"},
    {"-u", "is k6's; bench-load's is --connections N"},
    {"--insecure", "turns off TLS checks elsewhere; bench-load speaks plain http:// only"},
    {"-k", "turns off TLS checks elsewhere; bench-load speaks plain http:// only"},
};

/// A run that cannot start: the reason, exit 2 (no --help hint: the command line was fine).
int cannot_start(const std::string& why)
{
    std::fprintf(stderr, "bench-load: %s\n", why.c_str());
    return execbench::apps::exit_usage;
}

/// --capacity: the search, one line per step, the capacity line last; --out writes the capacity files.
int search_capacity(const execbench::load::scenario& s, const execbench::load::run_options& options,
                    const execbench::load::capacity_plan& plan, bool json, const std::optional<std::string>& out)
{
    namespace load = execbench::load;
    std::string run_id, model, arm;
    auto result = load::run_capacity(s, options, plan, [&](const load::capacity_step& step, const load::run_result& r) {
        if (run_id.empty()) {
            run_id = r.run_id;
            model = r.server.model;
            arm = r.arm_name();
        }
        std::printf("%s\n", (json ? load::format_step_json(step) : load::format_step_line(step)).c_str());
        std::fflush(stdout);
    });
    auto connections = plan.connections.describe();
    if (json)
        std::printf("%s\n", load::format_capacity_json(result, plan.slo, connections).c_str());
    else
        std::printf("%zu steps of %s, each after a %s warm-up; %s\n%s\n", result.steps.size(),
                    load::format_duration(plan.step_length).c_str(), load::format_duration(plan.step_warmup).c_str(),
                    connections.c_str(), load::format_capacity_line(result, plan.slo).c_str());
    std::fflush(stdout);
    if (out) {
        load::capacity_record rec{run_id, s.name, arm, model, plan.slo, connections, result};
        if (auto written = load::write_capacity(rec, load::capacity_paths_for(*out)); !written) {
            std::fprintf(stderr, "bench-load: %s\n", written.err().message.c_str());
            return execbench::apps::exit_run_errors;
        }
    }
    switch (result.what) {
    case load::capacity_result::outcome::measured:
    case load::capacity_result::outcome::generator_bound:
    case load::capacity_result::outcome::above_max: return execbench::apps::exit_ok;
    case load::capacity_result::outcome::below_min: return execbench::apps::exit_slo;
    case load::capacity_result::outcome::stopped: break;
    }
    return execbench::apps::exit_run_errors;
}

}  // namespace

int main(int argc, char** argv)
{
    namespace load = execbench::load;
    namespace apps = execbench::apps;
    CLI::App app{"bench-load: drives an HTTP/1.1 server with named scenarios and writes median-of-N results"};
    app.set_version_flag("--version", execbench::version_string());

    std::optional<std::string> scenario_name;
    bool list = false;
    bool list_suites = false;
    std::optional<std::string> scenarios_dir;
    load::run_options options;
    load::overrides o;
    std::optional<std::string> out;
    std::optional<std::string> hlog;
    bool quiet = false;
    bool allow_errors = false;
    std::string format = "text";
    std::optional<std::string> slo_text;
    std::optional<int> server_pid;
    std::optional<unsigned> threads;
    std::optional<std::string> cpus;
    unsigned processes = 1;
    std::optional<std::string> shard_text;
    std::optional<std::int64_t> start_at;
    std::optional<std::string> shard_trials;
    bool capacity = false;
    load::capacity_spec capacity_flags;
    bool profile = false;
    bool wrk_latency = false;

    app.add_option("--scenario", scenario_name, "Scenario name (a file scenarios/<name>.json)");
    app.add_flag("--list-scenarios", list, "List scenarios with their shapes; exit 1 when a file is invalid");
    app.add_flag("--list-suites", list_suites, "List suites and their scenarios");
    app.add_option("--scenarios-dir", scenarios_dir,
                   "Scenario directory (default: ./scenarios, then the installed one)");
    std::optional<std::string> positional_url;
    auto* url_option = app.add_option("--url", options.url,
                                      "Server URL; without --scenario and --path its path and query are the request "
                                      "(http://127.0.0.1:8080/io?delayInMillis=5; / is /), otherwise it is the "
                                      "server's base")
                           ->capture_default_str();
    app.add_option("URL", positional_url, "The URL as the last argument, as wrk, hey and oha take it (= --url URL)")
        ->excludes(url_option);
    app.add_flag("--allow-remote", options.allow_remote, "Allow a target that is not loopback");
    app.add_option("--path", o.path, "Request path with query (ad-hoc run, or replaces the scenario's requests)");
    app.add_option("-m,--method", o.method, "Request method");
    app.add_option("--body-file", o.body_file, "Request body file");
    app.add_option("-H,--header", o.headers, "Request header \"Name: value\" (repeatable)");
    app.add_option("--shape", o.shape,
                   "Load shape: burst, closed, open, ramp (ad-hoc default closed; --rate alone "
                   "implies open, --requests alone burst)");
    app.add_option("-c,--connections", o.connections, "Connections (ramp: peak users)")
        ->check(apps::integer_in(1, 1'000'000, "a number of connections"));
    app.add_option("-n,--requests", o.requests, "Burst: requests in total")
        ->check(apps::integer_in(1, 1'000'000'000, "a number of requests"));
    app.add_option("-R,--rate", o.rate, "Open shape: requests per second")
        ->check(apps::number_in(1e-3, 1e8, "a rate in requests per second"));
    app.add_option("-d,-z,--duration", o.duration,
                   "Closed/open/ramp: how long requests are issued: 500ms, 3s, 2m (-d as wrk, -z as hey and oha)");
    app.add_option("--think", o.think, "Closed/ramp: think time between a response and the next request: 2s or 1s..3s");
    app.add_option("--pipeline", o.pipeline,
                   "Closed/open: requests each connection carries at once, written together and answered in order "
                   "(HTTP/1.1 pipelining, as wrk's pipeline script; TechEmpower's plaintext uses 16); default 1")
        ->check(apps::integer_in(1, load::max_pipeline, "a pipeline depth"));
    app.add_option("-t,--threads", threads, "Load-generator threads (default 1)")
        ->check(apps::integer_in(1, 1024, "a number of threads"));
    app.add_option("--cpus", cpus, "Run the generator on these CPUs only, e.g. 1 or 2-3 (sched_setaffinity)");
    app.add_option("--processes", processes,
                   "Generator processes sharing the load (connections, users, rate split evenly, one start time), "
                   "merged exactly into one run")
        ->check(apps::integer_in(1, 1024, "a number of processes"));
    app.add_option("--shard", shard_text,
                   "This generator's share of a distributed run: i/N (0-based), e.g. 1/3; "
                   "merge the shards' --hlog logs with bench-report merge");
    app.add_option("--start-at", start_at,
                   "Start the load at this wall-clock time, milliseconds since the epoch "
                   "(a common start for shards); a late shard says so and starts at once")
        ->check(apps::integer_in(0, 32'503'680'000'000, "milliseconds since the epoch"));
    app.add_option("--shard-trials", shard_trials, "Internal (--processes): write the trials exactly to this file")
        ->group("");
    app.add_option("--trials", o.trials, "Number of measured trials")
        ->check(apps::integer_in(1, 1000, "a number of trials"));
    app.add_option("--warmup", o.warmup, "Warm-up duration (not recorded)");
    app.add_option("--pause", o.pause, "Pause between trials");
    app.add_option("--timeout", o.timeout, "Per-request timeout");
    app.add_option("--scale", o.scale,
                   "Multiply every user, connection and rate figure by F (0 < F <= 1), after the other options; "
                   "recorded and labelled in the results");
    app.add_option("--out", out, "Summary CSV to append to (trials, histograms, timeline, context beside it)");
    app.add_option("--hlog", hlog,
                   "Also write the trials as an HdrHistogram interval log: one histogram per second "
                   "and series, tagged <arm>/<series> (bench-report merge reads it)");
    app.add_option("--format", format,
                   "Standard output: text (one line per trial and a summary) or json (one "
                   "object per trial and one for the summary)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    app.add_option("--slo", slo_text,
                   "Gates on the result, e.g. 'p99<300ms,errors=0,rps>=1800'; exit 3 when one "
                   "is broken");
    app.add_flag("--capacity", capacity,
                 "Search the highest open-loop rate that meets --slo (default p99<=250ms,errors=0,unsent=0): "
                 "short steps of --duration (default 3s) after --warmup (default 1s), --trials bisections "
                 "(default 3), --connections fixed or following the rate (docs/methodology.md, Capacity)");
    app.add_option("--start-rate", capacity_flags.start_rate, "Capacity: the first step's rate (default 100)")
        ->check(apps::number_in(1e-3, 1e8, "a rate in requests per second"));
    app.add_option("--max-rate", capacity_flags.max_rate, "Capacity: the highest rate searched (default 1,000,000)")
        ->check(apps::number_in(1e-3, 1e8, "a rate in requests per second"));
    app.add_option("--resolution", capacity_flags.resolution_percent,
                   "Capacity: bisect until the bracket is this many percent wide (default 5)")
        ->check(apps::number_in(0.1, 50, "a percentage"));
    app.add_option("--connections-per-rps", capacity_flags.connections_per_rps,
                   "Capacity without --connections: connections per req/s of the step (default 1)")
        ->check(apps::number_in(1e-3, 100, "connections per req/s"));
    app.add_flag("--allow-errors", allow_errors,
                 "Run even when the pre-flight request fails (deliberate failure runs)");
    app.add_flag("--quiet", quiet, "No banner, no progress output");
    app.add_flag("--latency", wrk_latency, "Accepted as wrk takes it; the percentiles are always reported");
    app.add_flag("--profile", profile,
                 "After the measured trials, one more with the server under perf (not a result; a local server "
                 "whose pid is known): flame graph, stacks and per-request counts in <folder of --out>/profile/");
    app.add_option("--server-pid", server_pid, "Pid of the server to sample (default: from /health or the port)")
        ->check(apps::integer_in(1, 4'194'304, "a process id"));

    if (auto code = apps::parse_command_line(app, program, argc, argv, foreign_flags))
        return *code;
    if (positional_url)
        options.url = *positional_url;
    if (wrk_latency && !quiet)
        std::fprintf(stderr, "bench-load: --latency (wrk's) is always on here: the text line shows p50 and p99, "
                             "--format json and --out hold p90 and p999 too\n");
    // -d is wrk's duration; hey's and oha's -d is a request body, which would otherwise read as a bad duration or
    // as a closed loop beside -n.
    if (o.duration && !load::parse_duration(*o.duration))
        return apps::usage_error(program, "--duration: '" + *o.duration +
                                              "' is not a duration (500ms, 3s, 2m); -d is wrk's duration here: for "
                                              "hey's and oha's -d (a request body), put the body in a file and give "
                                              "--body-file FILE");
    if (list || list_suites) {
        auto dir = load::find_scenario_dir(scenarios_dir);
        if (!dir)
            return apps::usage_error(program, dir.err().message);
        if (list_suites) {
            for (const auto& [suite, names] : load::list_suites(*dir)) {
                std::string joined;
                for (const auto& n : names)
                    joined += (joined.empty() ? "" : ", ") + n;
                std::printf("%-14s %2zu  %s\n", suite.c_str(), names.size(), joined.c_str());
            }
            return apps::exit_ok;
        }
        auto entries = load::list_scenarios(*dir);
        std::fputs(load::format_scenario_table(entries).c_str(), stdout);
        bool invalid = std::any_of(entries.begin(), entries.end(), [](const auto& e) { return !e.problem.empty(); });
        return invalid ? apps::exit_run_errors : apps::exit_ok;
    }

    if (profile && (capacity || processes > 1 || shard_text))
        return apps::usage_error(program, "--profile profiles one generator's trials (no --capacity, --processes, "
                                          "--shard)");
    if (capacity) {
        // The search sets the shape, rate, length and trials of every step itself.
        if (o.rate)
            return apps::usage_error(program, "--rate: not used with --capacity, which searches the rate; the first "
                                              "step's is --start-rate");
        if (o.shape && *o.shape != "open")
            return apps::usage_error(program, "--shape: --capacity runs open-loop steps only");
        if (processes > 1 || shard_text)
            return apps::usage_error(program, "--capacity runs in one generator process (no --processes, --shard)");
        capacity_flags.slo = std::exchange(slo_text, std::nullopt);
        capacity_flags.connections = std::exchange(o.connections, std::nullopt);
        capacity_flags.trials = std::exchange(o.trials, std::nullopt);
        capacity_flags.step_duration = std::exchange(o.duration, std::nullopt);
        capacity_flags.step_warmup = std::exchange(o.warmup, std::nullopt);
        o.shape.reset();
    } else if (capacity_flags.start_rate || capacity_flags.max_rate || capacity_flags.resolution_percent ||
               capacity_flags.connections_per_rps) {
        return apps::usage_error(program, "--start-rate, --max-rate, --resolution and --connections-per-rps need "
                                          "--capacity");
    }
    std::vector<load::slo_gate> gates;
    if (slo_text) {
        auto parsed = load::parse_slo(*slo_text);
        if (!parsed)
            return apps::usage_error(program, parsed.err().message);
        gates = std::move(*parsed);
    }

    load::scenario s = load::ad_hoc_scenario();
    if (scenario_name) {
        auto dir = load::find_scenario_dir(scenarios_dir);
        if (!dir)
            return apps::usage_error(program, dir.err().message);
        auto loaded = load::load_named_scenario(*dir, *scenario_name);
        if (!loaded)
            return apps::usage_error(program, loaded.err().message);
        s = std::move(loaded.value());
    }
    auto url = load::read_url_option(options.url, load::is_ad_hoc(s), o.path.has_value());
    if (!url)
        return apps::usage_error(program, url.err().message);
    options.url = url->base;
    if (url->request_target)
        o.path = url->request_target;
    auto applied = load::apply_overrides(s, o);
    if (!applied)
        return apps::usage_error(program, applied.err().message);
    if (url->note)
        applied->push_back(*url->note);
    if (!shard_trials)  // a shard of --processes: its parent said so already
        for (const auto& note : *applied)
            std::fprintf(stderr, "bench-load: %s\n", note.c_str());
    std::optional<load::shard_spec> shard;
    if (shard_text) {
        if (processes > 1)
            return apps::usage_error(program, "--shard and --processes exclude each other (--processes starts its "
                                              "own shards)");
        auto parsed = load::parse_shard(*shard_text);
        if (!parsed)
            return apps::usage_error(program, parsed.err().message);
        auto shared = load::shard_scenario(s, *parsed);
        if (!shared)
            return apps::usage_error(program, shared.err().message);
        s = std::move(*shared);
        shard = *parsed;
    }
    if (start_at && processes > 1)
        return apps::usage_error(program, "--start-at and --processes exclude each other (--processes gives its "
                                          "shards a common start)");
    if (threads)
        options.threads = *threads;
    if (server_pid)
        options.server_pid = static_cast<pid_t>(*server_pid);
    std::string pinned_to;
    if (cpus) {
        auto list = execbench::parse_cpu_list(*cpus);
        if (!list)
            return apps::usage_error(program, "--cpus: " + list.err().message);
        // Before the engine's threads start, so they inherit the mask.
        if (auto pinned = execbench::pin_process(*list); !pinned)
            return apps::usage_error(program, "--cpus: " + pinned.err().message);
        pinned_to = execbench::format_cpu_list(*list);
    }

    const bool json = format == "json";
    auto print_line = [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    };
    load::session_options so;
    so.allow_errors = allow_errors;
    so.gates = std::move(gates);
    so.shard = shard;
    so.start_at = start_at;
    so.out = out;
    so.hlog = hlog;
    so.shard_trials = shard_trials;
    so.json = json;
    so.quiet = quiet;
    so.note = [](const std::string& text) { std::fprintf(stderr, "bench-load: %s\n", text.c_str()); };
    so.print = print_line;
    if (processes > 1) {
        auto& plan = so.shards.emplace();
        plan.processes = processes;
        plan.args = load::shard_arguments(std::vector<std::string>(argv + 1, argv + argc));
        if (cpus)  // parsed above
            plan.shard_cpus = load::split_cpus(*execbench::parse_cpu_list(*cpus), processes);
    }
    options.stop = &apps::stop_requested;
    load::progress_printer progress(stderr);
    options.on_progress = [&](const load::progress_event& ev) {
        if (!quiet)
            progress(ev);
        if (ev.what == load::progress_event::phase::trial_done && ev.finished) {
            progress.clear();
            print_line(json ? load::format_trial_json(*ev.run, *ev.finished)
                            : load::format_trial_line(*ev.run, *ev.finished));
        }
    };
    so.run = options;

    auto opened = load::session::open(std::move(s), std::move(so));
    if (!opened)
        return cannot_start(opened.err().message);
    const auto& session = *opened;
    std::optional<load::capacity_plan> plan;
    if (capacity) {
        auto spec = session.scenario_used().capacity.value_or(load::capacity_spec{});
        spec.merge(capacity_flags);
        auto made = load::make_capacity_plan(spec);
        if (!made)
            return apps::usage_error(program, made.err().message);
        plan = std::move(*made);
    }
    // A capacity search sets its steps' shape, length and trials itself: the banner says those, not the scenario's.
    if (!quiet)
        std::fprintf(stderr, "bench-load: %s\n", session.banner(plan ? load::describe(*plan) : "").c_str());
    if (auto ready = session.preflight(); !ready)
        return cannot_start(ready.err().message);
    if (!capacity)
        if (auto ok = session.check_outputs(); !ok)
            return apps::usage_error(program, ok.err().message);
    apps::stop_on_sigint();

    if (plan) {
        options.on_progress = [&](const load::progress_event& ev) {
            if (!quiet && ev.what != load::progress_event::phase::trial_done)
                progress(ev);
            else
                progress.clear();
        };
        return search_capacity(session.scenario_used(), options, *plan, json, out);
    }
    auto result = session.run();
    if (!result)
        return cannot_start(result.err().message);
    auto& r = *result;
    r.affinity.load = pinned_to;
    progress.clear();
    auto verdicts = session.judge(r);
    session.summarize(r, verdicts);
    if (auto written = session.write(r); !written) {
        std::fprintf(stderr, "bench-load: %s\n", written.err().message.c_str());
        return apps::exit_run_errors;
    }
    if (profile && !r.partial)
        session.profile(r);
    return static_cast<int>(session.finish(r, verdicts));
}
