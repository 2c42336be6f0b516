#pragma once

#include "execbench/load/record/arm_spec.hpp"
#include "execbench/load/record/machine_record.hpp"
#include "execbench/load/record/observed_server.hpp"
#include "execbench/load/record/run_record.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace execbench::load {

/// Where, how and on what one run ran: a line of `x-context.jsonl` and the `# context` comment of the histograms
/// file. `to_json` and `parse_context` are the only places its keys are spelled.
///
/// A line read back may come from an older version or a hand: a field it lacks keeps the default below, and the
/// ones whose absence a reader must tell apart are optional.
struct run_context {
    std::string run_id;
    std::string started_at;  ///< ISO 8601 UTC
    machine_context machine;  ///< build, machine and limits; memory_mb and cpu_mhz 0 when not read
    std::int64_t cpu_max_window_ms = 0;  ///< the window of the server's CPU maximum (stats::cpu_max_window)
    arm_spec arm;                       ///< name, model (the server's when the arm named none) and options
    std::optional<run_order> order;     ///< bench-suite's order; absent outside a suite
    std::optional<affinity_record> affinity;  ///< absent in lines written before pinning was recorded
    /// The scenario as it ran. What a context does not record (headers, bodies, the background's mix, the capacity
    /// search's settings) keeps its default when read back.
    scenario scenario_used;
    std::string scale_note;  ///< "run at 0.97 scale: ..." ("" unscaled)
    std::string time_note;   ///< "run in 0.2 of its time: ..." ("" uncompressed)
    std::string url;         ///< the load's base URL; "" when not recorded
    unsigned threads = 1;    ///< the generator's threads
    observed_server server;  ///< health_json as re-serialised ("" when the server gave none)
    std::size_t trials_completed = 0;
    std::size_t generator_bound_trials = 0;
    bool partial = false;
    bool noisy = false;
};

/// The context of a finished (or stopped) run.
run_context context_of(const run_record& r);

}  // namespace execbench::load
