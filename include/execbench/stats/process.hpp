#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>
#include <sys/types.h>

namespace execbench::stats {

/// One reading of a process from /proc/<pid>.
struct process_sample {
    std::uint64_t resident_bytes = 0;  ///< VmRSS
    double cpu_seconds = 0;            ///< utime + stime
    std::uint32_t threads = 0;
    std::uint64_t voluntary_switches = 0;  ///< summed over the process's threads (from /proc/<pid>/status)
    std::uint64_t involuntary_switches = 0;
    std::uint32_t open_fds = 0;
    std::uint32_t open_sockets = 0;  ///< fds that are sockets
    bool walked = false;             ///< the fd table (and another process's threads) were walked for this reading
};

/// How much of /proc a reading costs.
enum class sample_depth {
    /// Also walks the fd table (one readlink per fd, for the sockets) and, for another process, every thread's
    /// status (for the context switches): its cost grows with the process's connections and threads.
    full,
    /// Two small files and one stat() of the fd directory, whatever the process's size: open_sockets and the
    /// context switches of another process are left 0 (a periodic reader carries them from its last full one).
    cheap,
};

/// Reads /proc/<pid> (0 = this process); the error names the file that could not be read.
result<process_sample> sample_process(pid_t pid = 0, sample_depth depth = sample_depth::full);

/// `root` and its descendants, found through each task's /proc/<pid>/task/<tid>/children: a server's master
/// process and its workers. Just `root` when it has no children; empty when `root` does not exist.
std::vector<pid_t> process_tree(pid_t root);

/// Adds `b`'s figures to `a` (a process tree's reading is the sum of its processes'); `walked` only when both were.
void add_sample(process_sample& a, const process_sample& b);

/// The pid of the local process listening on TCP `port` (IPv4 or IPv6), found through /proc/net/tcp* and fd links.
std::optional<pid_t> find_listening_pid(std::uint16_t port);

/// The Prometheus names of the process figures: bench-server's /metrics writes them, bench-load's remote sampling
/// reads them back (the names Prometheus client libraries use for the same figures).
namespace process_metric {
inline constexpr std::string_view resident_bytes = "process_resident_memory_bytes";
inline constexpr std::string_view cpu_seconds = "process_cpu_seconds_total";
inline constexpr std::string_view threads = "process_threads";
inline constexpr std::string_view open_fds = "process_open_fds";
inline constexpr std::string_view open_sockets = "process_open_sockets";
inline constexpr std::string_view context_switches = "process_context_switches_total";
}  // namespace process_metric

/// The process figures of a Prometheus text exposition (as above); empty when it holds none. Without
/// process_open_sockets, the open fds stand in for the sockets (an upper bound).
std::optional<process_sample> parse_process_metrics(std::string_view exposition);

}  // namespace execbench::stats
