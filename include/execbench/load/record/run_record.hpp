#pragma once

#include "execbench/load/record/arm_spec.hpp"
#include "execbench/load/record/machine_record.hpp"
#include "execbench/load/record/measurement.hpp"
#include "execbench/load/record/observed_server.hpp"
#include "execbench/load/record/tcp_counters.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/stats/downstream_metrics.hpp"
#include "execbench/stats/sampler.hpp"
#include "execbench/stats/trials.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// What a run produced, the data the results writers, the session and the report share (load::run fills it; load/record
// holds it below the machinery that makes it, so a reader of results compiles none of that machinery).
namespace execbench::load {

/// One trial: what the engine measured plus the server's process figures.
struct trial_result {
    unsigned index = 0;  ///< 1-based
    trial_measurement measured;
    std::optional<stats::process_summary> server;
    double sampler_cpu_seconds = 0;  ///< what sampling the server cost this process over the trial
    /// The kernel's TCP counters over the trial (kernel_difference); empty where /proc/net could not be read.
    std::optional<kernel_counters> kernel;
    /// What the server's downstream client did over the trial (its /metrics before and after); empty for a server
    /// that does not report it.
    std::optional<stats::downstream_reading> downstream;
    /// The generator, not the server, was the bottleneck: kept in the raw results, left out of the summary.
    bool generator_bound = false;
    std::string generator_bound_reason;  ///< e.g. "load generator CPU 97% of 1 core"
};

/// How the suite ordered its runs (bench-suite only).
struct run_order {
    std::string kind;  ///< "interleaved" or "blocked"
    std::uint64_t seed = 0;
    unsigned round = 0;  ///< 1-based round of this server's trial; 1 in blocked order
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
struct run_record {
    scenario scenario_used;  ///< after command-line overrides
    std::string run_id;      ///< unique per run, joins the results files
    std::string started_at;  ///< ISO 8601 UTC
    std::string url;
    unsigned threads = 1;
    observed_server server;
    arm_spec arm;  ///< name "" outside a suite: labelled by the server's model
    std::optional<run_order> order;
    affinity_record affinity;
    machine_context context;
    std::vector<trial_result> trials;
    std::vector<metric_spread> summary;  ///< median/min/max per metric, in column order
    bool partial = false;                ///< stopped early; the trials present are complete or marked stopped
    [[nodiscard]] bool noisy() const noexcept;
    [[nodiscard]] bool had_errors() const noexcept;
    /// Every trial's requests were answered with HTTP error statuses only (refused_every_request).
    [[nodiscard]] bool refused_every_request() const noexcept;
    /// Requests due in open loop that were never sent (the server fell behind), over all trials.
    [[nodiscard]] bool had_unsent() const noexcept;
    /// The arm's name, or the server's model outside a suite.
    [[nodiscard]] const std::string& arm_name() const noexcept;
    /// Trials marked generator-bound.
    [[nodiscard]] std::size_t generator_bound_trials() const noexcept;
};

}  // namespace execbench::load
