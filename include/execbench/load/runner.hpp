#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/arm.hpp"
#include "execbench/load/engine.hpp"
#include "execbench/load/scenario.hpp"
#include "execbench/load/slo.hpp"
#include "execbench/stats/sampler.hpp"
#include "execbench/stats/trials.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace execbench::load {

struct progress_event;

/// Where and how a scenario is run (the scenario says what is run).
struct run_options {
    std::string url = "http://127.0.0.1:8080";
    bool allow_remote = false;
    unsigned threads = 1;
    std::optional<pid_t> server_pid;                 ///< default: found from the listening port when local
    const std::atomic<bool>* stop = nullptr;         ///< set (e.g. from SIGINT) to end the run early
    std::chrono::milliseconds sample_period{100};    ///< server sampling, 10 Hz
    std::uint64_t seed = 1;
    unsigned load_cpus = 0;                          ///< CPUs the generator may use; 0: this process's mask
    /// Called on the calling thread a few times per second and after each trial; must not block for long.
    std::function<void(const progress_event&)> on_progress;
};

/// What is known about the server from its /health answer and from /proc.
struct server_info {
    std::string model = "unknown";   ///< from /health "model"; "unknown" when absent
    std::string health_json;         ///< the /health body as received ("" when none)
    bool local = false;
    std::optional<pid_t> pid;
    std::string sampling = "none";   ///< "proc", "metrics" or "none"
};

struct target;
/// Reads the server's /health (at the root of the base URL) and finds its pid: --server-pid, else the pid /health
/// reports, else the process listening on the port (local targets only).
server_info probe_server(const target& t, const run_options& options);

/// The machine and build a result came from.
struct run_context {
    std::string execbench_version;
    std::string git_revision;
    std::string build_type;
    std::string compiler;
    std::string cpu_model;
    unsigned cpu_count = 0;
    std::string kernel;
    std::string hostname;
    std::string boost_version;
    std::string cpu_governor;                 ///< "" where the machine has no cpufreq (most VMs)
    double cpu_mhz = 0;
    std::uint64_t memory_mb = 0;
    std::uint64_t rlimit_nofile = 0;
    std::uint64_t somaxconn = 0;
    std::string port_range;                   ///< ip_local_port_range, "low-high"
    std::optional<double> loadavg_before;     ///< 1-minute load average when the run started
    std::optional<double> loadavg_after;      ///< and when it ended
    std::optional<double> steal_percent;      ///< hypervisor steal over the run (/proc/stat)
};
/// Reads the context of this process and machine.
run_context collect_context();

/// One trial: what the engine measured plus the server's process figures.
struct trial_result {
    unsigned index = 0;                       ///< 1-based
    trial_measurement measured;
    std::optional<stats::process_summary> server;
    /// The generator, not the server, was the bottleneck: kept in the raw results, left out of the summary.
    bool generator_bound = false;
    std::string generator_bound_reason;       ///< e.g. "load generator CPU 97% of 1 core"
};

/// The bounds of the generator check (docs/methodology.md states them).
inline constexpr double generator_cpu_bound_percent = 90;   ///< of the cores the generator may use
inline constexpr double generator_lag_bound_millis = 10;    ///< p99 lateness of the open-loop send timer

/// Why a trial was generator-bound, or "" when it was not: its CPU at >= 90 % of min(threads, CPUs it may use),
/// or the open-loop send timer's p99 lateness beyond 10 ms; unsent requests of such a trial are the generator's.
std::string generator_bound_reason(const trial_result& t, unsigned threads, unsigned load_cpus);

/// How the suite ordered its runs (bench-suite only).
struct run_order {
    std::string kind;         ///< "interleaved" or "blocked"
    std::uint64_t seed = 0;
    unsigned round = 0;       ///< 1-based round of this server's trial; 1 in blocked order
};

/// The CPU lists each process was pinned to, as taskset writes them; "" when not pinned.
struct affinity_record {
    std::string server;
    std::string load;
    std::string downstream;
};

/// A metric across trials.
struct metric_spread {
    std::string name;
    stats::spread spread;
    bool noisy = false;
};

/// Everything a run produced; the results writers and the report read it.
struct run_result {
    scenario scenario_used;         ///< after command-line overrides
    std::string run_id;             ///< unique per run, joins the results files
    std::string started_at;         ///< ISO 8601 UTC
    std::string url;
    unsigned threads = 1;
    server_info server;
    arm_spec arm;                   ///< name "" outside a suite: labelled by the server's model
    std::optional<run_order> order;
    affinity_record affinity;
    run_context context;
    std::vector<trial_result> trials;
    std::vector<metric_spread> summary;   ///< median/min/max per metric, in column order
    bool partial = false;                 ///< stopped early; the trials present are complete or marked stopped
    [[nodiscard]] bool noisy() const noexcept;
    [[nodiscard]] bool had_errors() const noexcept;
    /// Requests due in open loop that were never sent (the server fell behind), over all trials.
    [[nodiscard]] bool had_unsent() const noexcept;
    /// The arm's name, or the server's model outside a suite.
    [[nodiscard]] const std::string& arm_name() const noexcept;
    /// Trials marked generator-bound.
    [[nodiscard]] std::size_t generator_bound_trials() const noexcept;
};

/// Named per-trial metrics in CSV column order (docs/results-format.md documents each).
std::vector<std::pair<std::string, double>> trial_metrics(const trial_result& t);
/// Metrics whose spread decides the noisy flag.
const std::vector<std::string>& noise_metrics();

/// Progress while a run goes on.
struct progress_event {
    enum class phase { warmup, trial, pause, trial_done, done } what = phase::trial;
    std::string scenario;
    std::string model;
    unsigned trial = 0;       ///< 1-based; 0 during warm-up
    unsigned trials = 0;
    duration elapsed{};       ///< since the run started
    duration remaining{};     ///< estimate
    double live_rps = 0;      ///< successful responses per second over the last interval
    std::uint64_t ok = 0;     ///< this trial so far
    std::uint64_t errors = 0;
    const trial_result* finished = nullptr;  ///< set with phase::trial_done
    const run_result* run = nullptr;         ///< the run so far (labels, options)
};

/// Runs a scenario: checks the open-file limit, resolves the target (refusing non-loopback unless allowed), reads
/// /health, warms up, runs the trials with server sampling, and summarises. Never prints. Fails before any load
/// is sent when the target or limits are unusable; a run whose requests fail still returns a result.
result<run_result> run(const scenario& s, const run_options& options);

/// Fills `r.summary` from `r.trials`: median, min and max of every metric, noisy when the range of a
/// noise metric exceeds 20 % of its median (only with two or more trials). Generator-bound trials are left out
/// unless every trial is.
void summarize_trials(run_result& r);

/// The engine plan for a scenario's load group with `requests` prepared.
trial_plan make_plan(const scenario& s, const target& t, const run_options& options);

/// "fiber io-600 median of 5: total=600 ok=600 errors=0 wall=312ms rps=1923 p50=305ms p99=309ms rss_max=14MB"
std::string format_summary_line(const run_result& r);
/// The same for one trial ("fiber io-600 trial 2/5: ...").
std::string format_trial_line(const run_result& r, const trial_result& t);
/// One trial as one line of JSON for `--format json` (docs/results-format.md).
std::string format_trial_json(const run_result& r, const trial_result& t);
/// The summary as one line of JSON: median/min/max of every summary column, the error classes and the SLO verdicts.
std::string format_summary_json(const run_result& r, const std::vector<slo_verdict>& slo = {});

}  // namespace execbench::load
