#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// One generator's share of a distributed run (docs/distributed.md): shard `index` (0-based) of `count`.
struct shard_spec {
    unsigned index = 0;
    unsigned count = 1;
};

/// Parses `--shard i/N` (0 <= i < N <= 1024); the error says what is expected.
result<shard_spec> parse_shard(std::string_view text);
/// "i/N".
std::string format_shard(shard_spec s);
/// Shard `s`'s part of `n` split evenly: the first `n % count` shards take one more, so the parts add up to `n`.
std::uint64_t shard_share(std::uint64_t n, shard_spec s) noexcept;
/// The scenario with this shard's share of every connection, user, request and rate figure (foreground and
/// background); fails when a share would be zero (fewer connections than shards).
result<scenario> shard_scenario(scenario s, shard_spec shard);

/// Waits until `epoch_ms` on the wall clock (or until `stop` is set); returns how late the call came (zero when it
/// was on time).
std::chrono::milliseconds wait_for_start(std::int64_t epoch_ms, const std::atomic<bool>* stop);
/// Milliseconds since the epoch now, on the wall clock.
std::int64_t epoch_millis_now();

/// A run's trials exactly as text, for a parent bench-load that merges its shards (`--processes`): counters, every
/// histogram in its exact text form, the per-second series, the timeline and the server's figures.
std::string format_shard_trials(const run_record& r);
/// Reads what `format_shard_trials` wrote; the error names the line.
result<std::vector<trial_result>> parse_shard_trials(std::string_view text);
/// Adds one shard's trials into `into`, trial by trial: counts and histograms add up (exactly), the wall time is
/// the longest, the generator's CPU adds up, a trial is generator-bound or stopped when any shard's was, and the
/// server's figures are the first shard's (every shard samples the same server).
void merge_shard_trials(std::vector<trial_result>& into, const std::vector<trial_result>& from, shard_spec from_shard);

}  // namespace execbench::load
