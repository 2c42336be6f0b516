#pragma once

#include "execbench/core/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench {

/// CPU numbers, sorted and without duplicates.
using cpu_list = std::vector<unsigned>;

/// Parses a list as taskset and /proc's Cpus_allowed_list write it: "0", "0-3", "0,2", "0-1,4".
result<cpu_list> parse_cpu_list(std::string_view text);
/// The list as text in the same form ("0-3,6"); "" for an empty list.
std::string format_cpu_list(const cpu_list& cpus);

/// The CPUs this process may run on (sched_getaffinity); every online CPU when that cannot be read.
cpu_list allowed_cpus();
/// The CPUs process `pid` may run on as /proc/PID/status lists them (Cpus_allowed_list); "" when unreadable.
std::string allowed_cpus_of(int pid);
/// How many CPUs this process may use: those it may run on, or fewer when its cgroup's CPU quota is lower (a pod's
/// `limits: {cpu: "2"}` on a larger node). What default thread counts follow, rather than the machine's cores.
unsigned usable_cpu_count();

/// The whole CPUs a cgroup v2 `cpu.max` line grants, rounded up: "200000 100000" is 2, "150000 100000" 2,
/// "50000 100000" 1; nothing for "max 100000" (no quota) or text that is no such line.
std::optional<unsigned> cpus_of_quota(std::string_view cpu_max);
/// The tightest CPU quota of this process's cgroup and its parents (cgroup v2, /sys/fs/cgroup/.../cpu.max), in
/// whole CPUs; nothing when none sets one or the files cannot be read (cgroup v1).
std::optional<unsigned> cgroup_cpu_quota();

/// Restricts this process and every thread it already has (each entry of /proc/self/task) to `cpus`; threads
/// started later inherit the mask. The error names the CPU list and the reason (e.g. a CPU that does not exist).
result<void> pin_process(const cpu_list& cpus);

/// Where bench-suite puts each process when the user names no CPUs.
struct cpu_plan {
    cpu_list server;
    cpu_list load;
    cpu_list downstream;
};
/// The default policy over the CPUs `usable`: with fewer than 2, nothing is pinned; otherwise the server under test
/// gets the first half (rounded up) and the generator and the downstream server share the rest, so the server's
/// CPU figures and throughput are its own. On 2 CPUs: server on the first, generator and downstream on the second.
cpu_plan default_cpu_plan(const cpu_list& usable);

}  // namespace execbench
