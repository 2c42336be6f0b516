#pragma once
// A profiled trial as data: the run, what perf saw over it, and the counts its CSV holds (load/profile captures it,
// load/results files and reads it).

#include "execbench/load/record/run_record.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// Collapsed stacks, as Brendan Gregg's stackcollapse scripts write them: "root;caller;...;leaf" → samples. The
/// root is the thread's name; a kernel frame ends in "_[k]"; a frame perf could not name is its binary, "[libc.so.6]".
using folded_stacks = std::map<std::string, std::uint64_t>;

/// What `perf stat -x,` counted over its window, summed over the threads it watched.
struct perf_counts {
    double task_clock_millis = 0;  ///< CPU time the threads ran
    double context_switches = 0;
    double cpu_migrations = 0;
    double syscalls_total = 0;  ///< every system call (`raw_syscalls:sys_enter`)
    /// System calls by name (from `syscalls:sys_enter_<name>`), those made at least once, most frequent first.
    std::vector<std::pair<std::string, double>> syscalls;
    /// The calls `syscalls` does not name: the total less the named ones.
    [[nodiscard]] double syscalls_unnamed() const;
};

/// A profiled trial: its run (one trial, never a result) and what perf saw over exactly that trial.
struct profile_capture {
    run_record run;
    folded_stacks stacks;               ///< empty when perf record could not watch the server
    std::optional<perf_counts> counts;  ///< none when perf stat could not
    std::vector<std::string> notes;     ///< what could not be measured, and why
    /// Requests the trial completed or failed, background ones included: what "per request" divides by.
    [[nodiscard]] double requests() const;
    /// The trial's successful responses per second.
    [[nodiscard]] double requests_per_second() const;
};

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

}  // namespace execbench::load
