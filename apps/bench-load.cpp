// bench-load: parses options and runs a scenario through the execbench load library.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/distributed/processes.hpp"
#include "execbench/load/distributed/shard.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/progress.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/record/slo.hpp"
#include "execbench/load/scenario/overrides.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/session/session.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
    {"--insecure", "turns off TLS checks elsewhere; bench-load checks no certificate unless --tls-verify: drop it"},
    {"-k", "turns off TLS checks elsewhere; bench-load checks no certificate unless --tls-verify: drop it"},
};

/// A run that cannot start: the reason, exit 2 (no --help hint: the command line was fine).
int cannot_start(const std::string& why)
{
    std::fprintf(stderr, "bench-load: %s\n", why.c_str());
    return execbench::apps::exit_usage;
}

namespace load = execbench::load;
namespace apps = execbench::apps;

/// bench-load's command line, as parsed.
struct command_line {
    std::optional<std::string> scenario_name;
    bool list = false;
    bool list_suites = false;
    std::optional<std::string> scenarios_dir;
    load::run_options options;
    std::optional<std::string> positional_url;
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
    std::optional<load::shard_spec> shard;  ///< --shard as parsed (scenario_to_run)
    std::optional<std::int64_t> start_at;
    std::optional<std::string> shard_trials;
    bool capacity = false;
    load::capacity_spec capacity_flags;
    bool profile = false;
    bool wrk_latency = false;
};

/// What to send and where: the scenario, the target, the requests and the load's shape.
void add_load_options(CLI::App& app, command_line& c)
{
    app.add_option("--scenario", c.scenario_name, "Scenario name (a file scenarios/<name>.json)");
    app.add_flag("--list-scenarios", c.list, "List scenarios with their shapes; exit 1 when a file is invalid");
    app.add_flag("--list-suites", c.list_suites, "List suites and their scenarios");
    app.add_option("--scenarios-dir", c.scenarios_dir,
                   "Scenario directory (default: ./scenarios, then the installed one)");
    auto* url_option = app.add_option("--url", c.options.url,
                                      "Server URL, http:// or https:// (TLS 1.2/1.3; the server's certificate is not "
                                      "checked unless --tls-verify, as wrk); without --scenario and --path its path "
                                      "and query are the request (http://127.0.0.1:8080/io?delayInMillis=5; / is /), "
                                      "otherwise it is the server's base")
                           ->capture_default_str();
    app.add_option("URL", c.positional_url, "The URL as the last argument, as wrk, hey and oha take it (= --url URL)")
        ->excludes(url_option);
    app.add_flag("--allow-remote", c.options.allow_remote, "Allow a target that is not loopback");
    auto& o = c.o;
    app.add_option("--path", o.path, "Request path with query (ad-hoc run, or replaces the scenario's requests)");
    app.add_option("-m,--method", o.method, "Request method");
    app.add_option("--body-file", o.body_file, "Request body file");
    // One value per -H, as wrk and hey take it: a vector option would otherwise swallow the URL after it.
    app.add_option("-H,--header", o.headers, "Request header \"Name: value\" (repeatable, one per -H)")
        ->allow_extra_args(false);
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
    app.add_flag("--http2", o.http2,
                 "Speak HTTP/2: h2 by ALPN over https:// (a server that does not select h2 fails the handshake), h2c "
                 "with prior knowledge over http://; each request is a stream (scenario key \"protocol\": \"h2\")");
    app.add_option("--streams", o.streams,
                   "With --http2: requests each connection carries at once as concurrent streams, each sent again "
                   "as soon as it is answered (h2load's -m); default 1")
        ->check(apps::integer_in(1, load::max_streams, "a number of streams"));
    app.add_option("--reconnect-every", o.reconnect_every,
                   "Close each connection after N requests and open a new one (the last asks Connection: close); 1: "
                   "a new connection, and over https a new handshake, for every request; default: keep-alive")
        ->check(apps::integer_in(1, 1'000'000, "a number of requests"));
    app.add_option("--tls-resume", o.tls_resume,
                   "https: each new connection resumes the session its slot's last connection received (on, the "
                   "default), or makes a full handshake every time (off)")
        ->check(CLI::IsMember({"on", "off"}));
    app.add_flag("--tls-verify", c.options.tls.verify,
                 "https: check the server's certificate and name against the system's CAs (default: not checked, "
                 "for self-signed benchmark servers)");
    app.add_option("--tls-ca", c.options.tls.ca_file, "https: check the server's certificate against the CAs in "
                                                        "this PEM file (implies --tls-verify)")
        ->check(CLI::ExistingFile);
    app.add_option("--trials", o.trials, "Number of measured trials")
        ->check(apps::integer_in(1, 1000, "a number of trials"));
    app.add_option("--warmup", o.warmup, "Warm-up duration (not recorded)");
    app.add_option("--pause", o.pause, "Pause between trials");
    app.add_option("--timeout", o.timeout, "Per-request timeout");
    app.add_option("--scale", o.scale,
                   "Multiply every user, connection and rate figure by F (0 < F <= 1), after the other options; "
                   "recorded and labelled in the results");
    app.add_option("--time-scale", o.time_scale,
                   "Run the load's timeline in F of its length (0 < F <= 1): ramps steeper, the same users, rates "
                   "and think times; recorded and labelled in the results");
}

/// Where the generator runs: threads, CPUs, processes and shards of a distributed run, the server to sample.
void add_generator_options(CLI::App& app, command_line& c)
{
    app.add_option("-t,--threads", c.threads, "Load-generator threads (default 1)")
        ->check(apps::integer_in(1, 1024, "a number of threads"));
    app.add_option("--cpus", c.cpus, "Run the generator on these CPUs only, e.g. 1 or 2-3 (sched_setaffinity)");
    app.add_option("--processes", c.processes,
                   "Generator processes sharing the load (connections, users, rate split evenly, one start time), "
                   "merged exactly into one run")
        ->check(apps::integer_in(1, 1024, "a number of processes"));
    app.add_option("--shard", c.shard_text,
                   "This generator's share of a distributed run: i/N (0-based), e.g. 1/3; "
                   "merge the shards' --hlog logs with bench-report merge");
    app.add_option("--start-at", c.start_at,
                   "Start the load at this wall-clock time, milliseconds since the epoch "
                   "(a common start for shards); a late shard says so and starts at once")
        ->check(apps::integer_in(0, 32'503'680'000'000, "milliseconds since the epoch"));
    app.add_option("--shard-trials", c.shard_trials, "Internal (--processes): write the trials exactly to this file")
        ->group("");
    app.add_option("--server-pid", c.server_pid, "Pid of the server to sample (default: from /health or the port)")
        ->check(apps::integer_in(1, 4'194'304, "a process id"));
}

/// What comes out: files, formats, gates, the capacity search and the profile.
void add_output_options(CLI::App& app, command_line& c)
{
    app.add_option("--out", c.out, "Summary CSV to append to (trials, histograms, timeline, context beside it)");
    app.add_option("--hlog", c.hlog,
                   "Also write the trials as an HdrHistogram interval log: one histogram per second "
                   "and series, tagged <arm>/<series> (bench-report merge reads it)");
    app.add_option("--format", c.format,
                   "Standard output: text (one line per trial and a summary) or json (one "
                   "object per trial and one for the summary)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    app.add_option("--slo", c.slo_text,
                   "Gates on the result, e.g. 'p99<300ms,errors=0,rps>=1800'; exit 3 when one "
                   "is broken");
    app.add_flag("--capacity", c.capacity,
                 "Search the highest open-loop rate that meets --slo (default p99<=250ms,errors=0,unsent=0): "
                 "short steps of --duration (default 3s) after --warmup (default 1s), --trials bisections "
                 "(default 3), --connections fixed or following the rate (docs/methodology.md, Capacity)");
    auto& f = c.capacity_flags;
    app.add_option("--start-rate", f.start_rate, "Capacity: the first step's rate (default 100)")
        ->check(apps::number_in(1e-3, 1e8, "a rate in requests per second"));
    app.add_option("--max-rate", f.max_rate, "Capacity: the highest rate searched (default 1,000,000)")
        ->check(apps::number_in(1e-3, 1e8, "a rate in requests per second"));
    app.add_option("--resolution", f.resolution_percent,
                   "Capacity: bisect until the bracket is this many percent wide (default 5)")
        ->check(apps::number_in(0.1, 50, "a percentage"));
    app.add_option("--connections-per-rps", f.connections_per_rps,
                   "Capacity without --connections: connections per req/s of the step (default 1)")
        ->check(apps::number_in(1e-3, 100, "connections per req/s"));
    app.add_flag("--allow-errors", c.allow_errors,
                 "Run even when the pre-flight request fails (deliberate failure runs)");
    app.add_flag("--quiet", c.quiet, "No banner, no progress output");
    app.add_flag("--latency", c.wrk_latency, "Accepted as wrk takes it; the percentiles are always reported");
    app.add_flag("--profile", c.profile,
                 "After the measured trials, one more with the server under perf (not a result; a local server "
                 "whose pid is known): flame graph, stacks and per-request counts in <folder of --out>/profile/");
}

/// --list-scenarios and --list-suites.
int list_catalogue(const command_line& c)
{
    auto dir = load::find_scenario_dir(c.scenarios_dir);
    if (!dir)
        return apps::usage_error(program, dir.err().message);
    if (c.list_suites) {
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

/// The options that exclude each other, and --capacity's: the search sets every step's shape, rate, length and
/// trials itself, so --slo, --connections, --trials, --duration and --warmup become the plan's.
execbench::result<void> settle_modes(command_line& c)
{
    using execbench::fail;
    auto& o = c.o;
    if (c.profile && (c.capacity || c.processes > 1 || c.shard_text))
        return fail("--profile profiles one generator's trials (no --capacity, --processes, --shard)");
    if (c.shard_text && c.processes > 1)
        return fail("--shard and --processes exclude each other (--processes starts its own shards)");
    if (c.start_at && c.processes > 1)
        return fail("--start-at and --processes exclude each other (--processes gives its shards a common start)");
    auto& f = c.capacity_flags;
    if (!c.capacity) {
        if (f.start_rate || f.max_rate || f.resolution_percent || f.connections_per_rps)
            return fail("--start-rate, --max-rate, --resolution and --connections-per-rps need --capacity");
        return {};
    }
    if (o.rate)
        return fail("--rate: not used with --capacity, which searches the rate; the first step's is --start-rate");
    if (o.shape && *o.shape != "open")
        return fail("--shape: --capacity runs open-loop steps only");
    if (c.processes > 1 || c.shard_text)
        return fail("--capacity runs in one generator process (no --processes, --shard)");
    f.slo = std::exchange(c.slo_text, std::nullopt);
    f.connections = std::exchange(o.connections, std::nullopt);
    f.trials = std::exchange(o.trials, std::nullopt);
    f.step_duration = std::exchange(o.duration, std::nullopt);
    f.step_warmup = std::exchange(o.warmup, std::nullopt);
    o.shape.reset();
    return {};
}

/// The scenario as this command line runs it: named or ad hoc, the URL's request, the overrides (their notes on
/// standard error) and this process's shard of it.
execbench::result<load::scenario> scenario_to_run(command_line& c)
{
    load::scenario s = load::ad_hoc_scenario();
    if (c.scenario_name) {
        auto dir = load::find_scenario_dir(c.scenarios_dir);
        if (!dir)
            return dir.err();
        auto loaded = load::load_named_scenario(*dir, *c.scenario_name);
        if (!loaded)
            return loaded.err();
        s = std::move(loaded.value());
    }
    auto url = load::read_url_option(c.options.url, load::is_ad_hoc(s), c.o.path.has_value());
    if (!url)
        return url.err();
    c.options.url = url->base;
    if (url->request_target)
        c.o.path = url->request_target;
    auto applied = load::apply_overrides(s, c.o);
    if (!applied)
        return applied.err();
    if (url->note)
        applied->push_back(*url->note);
    if (!c.shard_trials)  // a shard of --processes: its parent said so already
        for (const auto& note : *applied)
            std::fprintf(stderr, "bench-load: %s\n", note.c_str());
    if (!c.shard_text)
        return s;
    auto shard = load::parse_shard(*c.shard_text);
    if (!shard)
        return shard.err();
    c.shard = *shard;
    return load::shard_scenario(s, *shard);
}

/// The capacity plan: the scenario's "capacity" merged with the command line's.
execbench::result<load::capacity_plan> capacity_plan_of(const command_line& c, const load::scenario& s)
{
    auto spec = s.capacity.value_or(load::capacity_spec{});
    spec.merge(c.capacity_flags);
    return load::make_capacity_plan(spec);
}

/// --cpus: pins this process before the engine's threads start, so they inherit the mask; the list as pinned.
execbench::result<std::string> pin_generator(const std::optional<std::string>& cpus)
{
    if (!cpus)
        return std::string{};
    auto list = execbench::parse_cpu_list(*cpus);
    if (!list)
        return execbench::fail("--cpus: " + list.err().message);
    if (auto pinned = execbench::pin_process(*list); !pinned)
        return execbench::fail("--cpus: " + pinned.err().message);
    return execbench::format_cpu_list(*list);
}

void print_line(const std::string& line)
{
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

/// The session's options from the command line; its notes and lines clear the progress bar before they print.
load::session_options session_options_from(command_line& c, load::progress_printer& progress,
                                           const std::vector<std::string>& args)
{
    load::session_options so;
    so.allow_errors = c.allow_errors;
    so.shard = c.shard;
    so.start_at = c.start_at;
    so.out = c.out;
    so.hlog = c.hlog;
    so.shard_trials = c.shard_trials;
    so.json = c.format == "json";
    so.quiet = c.quiet;
    so.profile = c.profile;
    so.note = [&progress](const std::string& text) {
        progress.clear();
        std::fprintf(stderr, "bench-load: %s\n", text.c_str());
    };
    so.print = [&progress](const std::string& line) {
        progress.clear();
        print_line(line);
    };
    if (c.processes > 1) {
        auto& plan = so.shards.emplace();
        plan.processes = c.processes;
        plan.args = load::shard_arguments(args);
        if (c.cpus)  // parsed by pin_generator
            plan.shard_cpus = load::split_cpus(*execbench::parse_cpu_list(*c.cpus), c.processes);
    }
    if (c.threads)
        c.options.threads = *c.threads;
    if (c.server_pid)
        c.options.server_pid = static_cast<pid_t>(*c.server_pid);
    c.options.stop = &apps::stop_requested;
    // The progress bar, and each trial's line as it ends; a capacity search prints its steps' lines instead.
    const bool json = so.json;
    const bool quiet = c.quiet;
    if (c.capacity)
        c.options.on_progress = [&progress, quiet](const load::progress_event& ev) {
            if (!quiet && ev.what != load::progress_event::phase::trial_done)
                progress(ev);
            else
                progress.clear();
        };
    else
        c.options.on_progress = [&progress, quiet, json](const load::progress_event& ev) {
            if (!quiet)
                progress(ev);
            if (ev.what == load::progress_event::phase::trial_done && ev.finished) {
                progress.clear();
                print_line(json ? load::format_trial_json(*ev.run, *ev.finished)
                                : load::format_trial_line(*ev.run, *ev.finished));
            }
        };
    so.run = c.options;
    return so;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"bench-load: drives an HTTP/1.1 server with named scenarios and writes median-of-N results"};
    app.set_version_flag("--version", execbench::version_string());
    command_line c;
    add_load_options(app, c);
    add_generator_options(app, c);
    add_output_options(app, c);
    if (auto code = apps::parse_command_line(app, program, argc, argv, foreign_flags))
        return *code;
    if (c.positional_url)
        c.options.url = *c.positional_url;
    if (!c.options.tls.ca_file.empty())
        c.options.tls.verify = true;
    if (c.wrk_latency && !c.quiet)
        std::fprintf(stderr, "bench-load: --latency (wrk's) is always on here: the text line shows p50 and p99, "
                             "--format json and --out hold p90 and p999 too\n");
    // -d is wrk's duration; hey's and oha's -d is a request body, which would otherwise read as a bad duration or
    // as a closed loop beside -n.
    if (c.o.duration && !load::parse_duration(*c.o.duration)) {
        // The hint is for hey's and oha's users, who typed -d; --duration 5x is a mistyped duration.
        const bool spelt_d =
            std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strncmp(a, "-d", 2) == 0; });
        return apps::usage_error(program, "--duration: '" + *c.o.duration + "' is not a duration (500ms, 3s, 2m)" +
                                              (spelt_d ? "; -d is wrk's duration here: for hey's and oha's -d (a "
                                                         "request body), put the body in a file and give --body-file "
                                                         "FILE"
                                                       : ""));
    }
    if (c.list || c.list_suites)
        return list_catalogue(c);
    if (auto settled = settle_modes(c); !settled)
        return apps::usage_error(program, settled.err().message);
    std::vector<load::slo_gate> gates;
    if (c.slo_text) {
        auto parsed = load::parse_slo(*c.slo_text);
        if (!parsed)
            return apps::usage_error(program, parsed.err().message);
        gates = std::move(*parsed);
    }
    auto s = scenario_to_run(c);
    if (!s)
        return apps::usage_error(program, s.err().message);
    auto pinned_to = pin_generator(c.cpus);
    if (!pinned_to)
        return apps::usage_error(program, pinned_to.err().message);

    load::progress_printer progress(stderr);
    auto so = session_options_from(c, progress, std::vector<std::string>(argv + 1, argv + argc));
    so.load_affinity = *pinned_to;
    so.gates = std::move(gates);
    if (c.capacity) {
        auto plan = capacity_plan_of(c, *s);
        if (!plan)
            return apps::usage_error(program, plan.err().message);
        so.capacity = std::move(*plan);
    }
    auto session = load::session::open(std::move(*s), std::move(so));
    if (!session)
        return cannot_start(session.err().message);
    apps::stop_on_sigint();
    auto ended = session->execute();
    if (!ended)
        return cannot_start(ended.err().message);
    return static_cast<int>(*ended);
}
