#pragma once

#include "execbench/core/result.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <sys/types.h>

namespace execbench::stats {

/// One reading of a process from /proc/<pid>.
struct process_sample {
    std::uint64_t resident_bytes = 0;        ///< VmRSS
    double cpu_seconds = 0;                  ///< utime + stime
    std::uint32_t threads = 0;
    std::uint64_t voluntary_switches = 0;    ///< summed over the process's threads (from /proc/<pid>/status)
    std::uint64_t involuntary_switches = 0;
    std::uint32_t open_fds = 0;
    std::uint32_t open_sockets = 0;          ///< fds that are sockets
};

/// Reads /proc/<pid> (0 = this process); the error names the file that could not be read.
result<process_sample> sample_process(pid_t pid = 0);

/// The pid of the local process listening on TCP `port` (IPv4 or IPv6), found through /proc/net/tcp* and fd links.
std::optional<pid_t> find_listening_pid(std::uint16_t port);

/// Aggregate of samples taken while a trial ran.
struct process_summary {
    std::uint32_t samples = 0;
    double resident_mb_avg = 0;
    double resident_mb_max = 0;
    double cpu_percent_avg = 0;   ///< 100 = one core fully busy
    double cpu_percent_max = 0;
    std::uint32_t threads_max = 0;
    std::uint64_t voluntary_switches = 0;    ///< delta over the window
    std::uint64_t involuntary_switches = 0;  ///< delta over the window
    std::uint32_t sockets_max = 0;
    double cpu_seconds = 0;                  ///< delta over the window
};

/// Samples a process on a background thread at a fixed rate between start() and stop().
class process_sampler {
public:
    /// Samples `pid` every `period` (default 100 ms, i.e. 10 Hz).
    explicit process_sampler(pid_t pid, std::chrono::milliseconds period = std::chrono::milliseconds{100});
    ~process_sampler();
    process_sampler(const process_sampler&) = delete;
    process_sampler& operator=(const process_sampler&) = delete;

    /// Begins a window (takes the first sample at once).
    void start();
    /// Ends the window (takes a last sample) and returns the summary; empty when the process vanished at once.
    process_summary stop();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace execbench::stats
