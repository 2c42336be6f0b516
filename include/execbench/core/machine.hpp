#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace execbench {

/// Busy and steal jiffies of all CPUs from /proc/stat, for the share of time a hypervisor took between two reads.
struct cpu_times {
    std::uint64_t total = 0;
    std::uint64_t steal = 0;
};
/// The first line of /proc/stat; nothing when unreadable.
std::optional<cpu_times> read_cpu_times();
/// Steal time between two reads as a percentage of all CPU time; 0 when no time passed.
double steal_percent(const cpu_times& before, const cpu_times& after);

/// The 1-minute load average (/proc/loadavg); nothing when unreadable.
std::optional<double> load_average();
/// The frequency governor of CPU 0 (cpufreq); "" where the machine does not expose it (e.g. most VMs).
std::string cpu_governor();
/// The current clock of the first CPU in MHz from /proc/cpuinfo; 0 when not listed.
double cpu_mhz();
/// Total memory in MiB (/proc/meminfo MemTotal); 0 when unreadable.
std::uint64_t memory_mb();
/// The soft RLIMIT_NOFILE of this process (UINT64_MAX when unlimited).
std::uint64_t open_file_limit();
/// How far the soft limit can go: RLIMIT_NOFILE's hard limit, capped by fs.nr_open, which the kernel enforces whatever
/// the limit says (UINT64_MAX when neither caps it).
std::uint64_t open_file_ceiling();
/// Raises the soft RLIMIT_NOFILE towards the hard limit when it is below `descriptors`; returns the soft limit now in
/// force (UINT64_MAX when unlimited, 0 when unreadable). Children started afterwards inherit it.
std::uint64_t raise_open_file_limit(std::uint64_t descriptors) noexcept;
/// net.core.somaxconn, which caps every listen backlog; 0 when unreadable.
std::uint64_t somaxconn();
/// net.ipv4.ip_local_port_range as "low-high"; "" when unreadable.
std::string local_port_range();
/// The Boost version compiled in, e.g. "1.81".
std::string boost_version();

}  // namespace execbench
