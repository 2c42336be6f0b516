#pragma once

#include "execbench/core/cpus.hpp"
#include "execbench/core/result.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace execbench::load {

/// How bench-load --processes runs its shards (docs/distributed.md).
struct process_run_options {
    std::filesystem::path program = "/proc/self/exe";  ///< bench-load itself
    std::vector<std::string> args;                     ///< the command line for the shards (see shard_arguments)
    unsigned processes = 2;
    /// From now to the shards' common --start-at: time for each to start, read its scenario and send its pre-flight.
    std::chrono::milliseconds start_delay{1500};
    /// Each shard's --cpus (see split_cpus); empty: the shards are not pinned.
    std::vector<std::string> shard_cpus;
};

/// The --cpus of each of `shards` shards: consecutive slices of `cpus` as even as shard_share makes them, so shards do
/// not share a CPU; every shard gets all of `cpus` when there are fewer CPUs than shards.
std::vector<std::string> split_cpus(const cpu_list& cpus, unsigned shards);

/// The command line the shards of `--processes` get: `args` (without the program name) less the options the parent
/// keeps for itself (--processes, --out, --hlog, --format, --slo, --quiet, --cpus and the shard options), plus --quiet.
std::vector<std::string> shard_arguments(const std::vector<std::string>& args);

/// Runs `s` as `p.processes` bench-load shards (`--shard i/N`, a common `--start-at`), each with its own process,
/// open-file limit and threads, and merges their trials exactly into one run labelled as a single-process run of
/// `s` with `threads` the shards' threads together, against `t` as this process opened it. The shards' standard
/// output is discarded, their standard error is this process's. Fails before any load is sent when `s` cannot be
/// split, or when a shard fails to start.
result<run_record> run_in_processes(const scenario& s, const run_options& options, const run_target& t,
                                    const process_run_options& p);

}  // namespace execbench::load
