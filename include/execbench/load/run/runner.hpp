#pragma once

#include "execbench/core/machine.hpp"
#include "execbench/core/result.hpp"
#include "execbench/load/engine/engine.hpp"
#include "execbench/load/run/arm.hpp"
#include "execbench/load/run/kernel_counters.hpp"
#include "execbench/load/run/machine_context.hpp"
#include "execbench/load/record/run_record.hpp"
#include "execbench/load/run/server_probe.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/stats/sampler.hpp"
#include "execbench/stats/trials.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace execbench::load {

struct progress_event;

/// Where and how a scenario is run (the scenario says what is run).
struct run_options {
    std::string url = "http://127.0.0.1:8080";
    bool allow_remote = false;
    tls::client_options tls;  ///< how an https:// server is checked (default: not, as wrk)
    unsigned threads = 1;
    std::optional<pid_t> server_pid;               ///< default: found from the listening port when local
    std::string label;  ///< what progress calls the server (a suite's arm name); default: its reported model
    const std::atomic<bool>* stop = nullptr;       ///< set (e.g. from SIGINT) to end the run early
    std::chrono::milliseconds sample_period{100};  ///< server sampling, 10 Hz
    std::uint64_t seed = 1;
    unsigned load_cpus = 0;  ///< CPUs the generator may use; 0: this process's mask
    /// Called on the calling thread a few times per second and after each trial; must not block for long.
    std::function<void(const progress_event&)> on_progress;
    /// Called on the calling thread just before each measured trial's load starts and just after it ends, outside
    /// the trial's time (bench-load --profile enables perf over exactly the trial).
    std::function<void()> before_trial;
    std::function<void()> after_trial;
};

/// Progress while a run goes on.
struct progress_event {
    enum class phase { warmup, trial, pause, trial_done, done } what = phase::trial;
    std::string scenario;
    std::string label;   ///< run_options::label, or the server's model
    unsigned trial = 0;  ///< 1-based; 0 during warm-up
    unsigned trials = 0;
    duration elapsed{};    ///< since the run started
    duration remaining{};  ///< estimate
    double live_rps = 0;   ///< successful responses per second over the last interval
    std::uint64_t ok = 0;  ///< this trial so far
    std::uint64_t errors = 0;
    const trial_result* finished = nullptr;  ///< set with phase::trial_done
    /// The server's readings over that trial (set with phase::trial_done; empty when it was not sampled): one
    /// sampler per trial, so bench-suite's timeline does not sample the server a second time.
    const std::vector<stats::timed_sample>* server_readings = nullptr;
    const run_record* run = nullptr;  ///< the run so far (labels, options)
};

/// Where a run sends its load: the target as resolved and the server as probed, once per run.
struct run_target {
    target where;
    observed_server server;
};

/// Resolves `options.url` (refusing a target off this machine unless `options.allow_remote`) and probes the
/// server's /health and pid (probe_server).
result<run_target> open_target(const run_options& options);

/// Runs a scenario on a target already opened: checks the open-file limit, warms up, runs the trials with server
/// sampling, and summarises. Never prints. Fails before any load is sent when the scenario or the limits are
/// unusable; a run whose requests fail still returns a result.
result<run_record> run(const scenario& s, const run_options& options, const run_target& t);
/// open_target, then run: for callers whose run is one step of theirs (a capacity search's steps, a profile).
result<run_record> run(const scenario& s, const run_options& options);

/// A run's record before its trials: labels, the machine's context, a fresh run id and the server as probed (what
/// `run` starts with; bench-load --processes fills in its shards' trials).
run_record start_run_record(const scenario& s, const run_options& options, const run_target& t);
/// Completes a record once its trials are in: the machine's load and steal since `cpu_before`, the summary.
void finish_run_record(run_record& r, const std::optional<cpu_times>& cpu_before);

/// The engine plan for a scenario's load group with `requests` prepared.
trial_plan make_plan(const scenario& s, const target& t, const run_options& options);

}  // namespace execbench::load
