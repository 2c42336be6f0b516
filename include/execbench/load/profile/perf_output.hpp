#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/profile_record.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {


/// A C++ symbol as a flame graph shows it: template arguments as "<...>", parameter lists dropped (an operator's
/// own brackets and "(anonymous namespace)" kept), so a Boost.Asio handler reads in a frame's width.
std::string short_symbol(std::string_view symbol);

/// Collapses `perf script` output (perf's default fields, call graph on): one sample per block, its frames leaf
/// first, each counted once. Samples without frames count under the thread's name alone.
folded_stacks collapse_perf_script(std::string_view text);


/// The system calls counted by name: what an HTTP server's request path calls (network I/O, readiness, wakeups,
/// timers, memory). One event per name and thread, so not all ~360 (a 200-thread pool would need 70,000
/// descriptors); the rest are counted together through `raw_syscalls:sys_enter`.
const std::vector<std::string>& counted_syscalls();

/// The `-e` list for perf stat: task-clock, context-switches, cpu-migrations, raw_syscalls:sys_enter and
/// `syscalls:sys_enter_<name>` for each of `counted_syscalls`.
std::string perf_stat_events();

/// Reads `perf stat -x, -e <perf_stat_events()>` output (what it writes with `-o FILE`). An event perf did not count ("<not counted>", "<not supported>") reads as 0; the error
/// names a line that is not perf's CSV or says nothing was counted.
result<perf_counts> parse_perf_stat(std::string_view text);

}  // namespace execbench::load
