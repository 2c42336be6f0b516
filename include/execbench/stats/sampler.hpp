#pragma once

#include "execbench/stats/process.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <sys/types.h>

namespace execbench::stats {

/// A process reading and when it was taken.
struct timed_sample {
    std::chrono::steady_clock::time_point at;  ///< when the reading began (its CPU time is read first)
    process_sample sample;
};

/// Where a sampler's readings come from, read as deep as asked (a source may ignore the depth); empty when nothing
/// could be read this time (the sampler keeps going). A source reads the CPU time before anything slow.
using sample_source = std::function<std::optional<process_sample>(sample_depth)>;

/// Reads /proc/<pid> (0 = this process); another process with its descendants, summed (process_tree). A cheap reading carries the last full one's context switches and its
/// count of fds that are not sockets: open_sockets is then open_fds minus that count, exact while the process
/// opens and closes only sockets between two full readings.
sample_source proc_source(pid_t pid);

/// Calls a source at a fixed rate on its own thread between start() and stop(): bench-load's per-trial server
/// figures (from /proc, or /metrics for a remote server), which bench-suite's per-second server timeline reuses.
/// The first and last readings of a window are full, and one every `full_period` between them; the rest are cheap,
/// so the sampler's cost does not grow with the process's connections or threads (docs/methodology.md).
class periodic_sampler {
public:
    /// Reads `source` every `period`; a period under 1 ms is taken as 1 ms.
    periodic_sampler(sample_source source, std::chrono::milliseconds period,
                     std::chrono::milliseconds full_period = std::chrono::milliseconds{5000});
    ~periodic_sampler();
    periodic_sampler(const periodic_sampler&) = delete;
    periodic_sampler& operator=(const periodic_sampler&) = delete;

    /// Begins a window: drops earlier readings and takes the first at once.
    void start();
    /// Ends the window and returns its readings, oldest first, with a last one taken now; empty without a start.
    std::vector<timed_sample> stop();
    /// The period between readings.
    [[nodiscard]] std::chrono::milliseconds period() const noexcept;
    /// CPU time the readings of the last window cost, on whichever thread took them: the sampler's observer effect.
    [[nodiscard]] double cpu_seconds() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// The one rule for a rate between readings: the interval ending at `readings[end]` starts at the latest earlier
/// reading at least half a period before it. `cpu_seconds` moves in clock ticks (10 ms at 100 Hz), so over a much
/// shorter interval, such as the last one cut by stop(), one tick would read as a wild percentage; that interval is
/// measured together with the one before it instead. Empty when no earlier reading is far enough back.
std::optional<std::size_t> rate_start(std::span<const timed_sample> readings, std::size_t end,
                                      std::chrono::milliseconds period);

/// CPU use between two readings in percent of one core (100 = one core fully busy); 0 when `b` is not later.
double cpu_percent_between(const timed_sample& a, const timed_sample& b);

/// The window the CPU maximum is taken over: one 10 ms clock tick is 1 % of a core in it (10 % in a 100 ms sampling
/// period, where the maximum picked the period the ticks bunched in). Recorded with every run (`server_sampling`
/// in the context), so a reader can tell maxima taken over shorter windows before it.
inline constexpr std::chrono::milliseconds cpu_max_window{1000};

/// Aggregate of the readings taken while a trial ran.
struct process_summary {
    std::uint32_t samples = 0;
    double resident_mb_avg = 0;
    double resident_mb_max = 0;
    double cpu_percent_avg = 0;  ///< 100 = one core fully busy
    double cpu_percent_max = 0;  ///< over the busiest cpu_max_window; the average in a shorter window
    std::uint32_t threads_max = 0;
    std::uint64_t voluntary_switches = 0;    ///< delta over the window
    std::uint64_t involuntary_switches = 0;  ///< delta over the window
    std::uint32_t sockets_max = 0;
    double cpu_seconds = 0;  ///< delta over the window
    /// What each socket opened in the window cost: (peak RSS - the first reading's RSS) / (most sockets - the first
    /// reading's sockets), in bytes; 0 when no socket was opened. The first reading is taken before the load starts.
    double resident_bytes_per_socket = 0;
};

/// Summarises a window's readings (as periodic_sampler::stop returns them) taken every `period`.
process_summary summarize_readings(std::span<const timed_sample> readings, std::chrono::milliseconds period);

}  // namespace execbench::stats
