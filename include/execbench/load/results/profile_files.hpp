#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/profile/perf_output.hpp"
#include "execbench/load/profile/profiler.hpp"
#include "execbench/load/results/paths.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Folded stacks as text, one "stack samples" line each, and back; the error names the line.
std::string format_folded(const folded_stacks& stacks);
result<folded_stacks> parse_folded(std::string_view text);

/// A function's self time: the samples in which it was the innermost frame.
struct self_time {
    std::string function;
    std::uint64_t samples = 0;
    double percent = 0;  ///< of all samples
};
/// The `count` functions with the most self time, most first (ties by name).
std::vector<self_time> top_self_time(const folded_stacks& stacks, std::size_t count);

/// One count of a profiled trial: `kind` is `trial` (requests, seconds, requests_per_second, samples: no per-request
/// figure), `cpu`, `switches`, `syscall` (`all` first, then one row per name, `other` for the calls not named) or
/// `note` (its text in `name`).
struct profile_count {
    std::string kind;
    std::string name;
    double total = 0;
    double per_request = 0;
};

/// A profiled trial as its CSV holds it.
struct profile_record {
    std::string run_id, started_at, git_revision, scenario, arm, model;
    std::vector<profile_count> counts;
    /// The count `kind`/`name`, or nullptr.
    [[nodiscard]] const profile_count* find(std::string_view kind, std::string_view name) const;
    /// The trial's figure `name` (requests, seconds, requests_per_second, samples); 0 when absent.
    [[nodiscard]] double trial(std::string_view name) const;
    /// The notes: what could not be measured.
    [[nodiscard]] std::vector<std::string> notes() const;
};

/// The record of a capture: the trial, CPU µs, context switches (perf's, and the voluntary / involuntary split from
/// /proc), CPU migrations and system calls, each over the trial and per request, and the notes.
profile_record profile_record_of(const profile_capture& c);

/// The CSV text of a record (header first), and back; the error names the file or the bad field.
std::string format_profile_csv(const profile_record& r);
result<profile_record> read_profile_csv(const std::filesystem::path& file);

/// Writes a capture's flame graph, stacks (when perf record ran) and counts, replacing earlier ones of the same
/// scenario and arm in `<out_dir>/profile/`.
result<void> write_profile(const profile_capture& c, const std::filesystem::path& out_dir);

}  // namespace execbench::load
