#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace execbench::endpoints {

/// What the downstream client did, counted by every client under every model; lock-free, read by /metrics.
class downstream_counters {
public:
    /// A call started.
    void call_made() noexcept { calls_.fetch_add(1, std::memory_order_relaxed); }
    /// A connection to the downstream was opened.
    void connection_opened() noexcept { opened_.fetch_add(1, std::memory_order_relaxed); }
    /// A call went out on a connection an earlier call had used.
    void connection_reused() noexcept { reused_.fetch_add(1, std::memory_order_relaxed); }
    /// A call found every connection the cap allows busy and queued for one, for `waited` (until it got one or gave
    /// up); `timed_out` when it gave up at the downstream timeout.
    void pool_waited(std::chrono::steady_clock::duration waited, bool timed_out) noexcept
    {
        waits_.fetch_add(1, std::memory_order_relaxed);
        wait_nanos_.fetch_add(static_cast<std::uint64_t>(std::chrono::nanoseconds(waited).count()),
                              std::memory_order_relaxed);
        if (timed_out)
            timeouts_.fetch_add(1, std::memory_order_relaxed);
    }
    /// A call found the queue for a connection full and was refused at once (503).
    void pool_rejected() noexcept { rejected_.fetch_add(1, std::memory_order_relaxed); }

    [[nodiscard]] std::uint64_t calls() const noexcept { return calls_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t connections_opened() const noexcept { return opened_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t connections_reused() const noexcept { return reused_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t pool_waits() const noexcept { return waits_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t pool_timeouts() const noexcept { return timeouts_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t pool_rejections() const noexcept { return rejected_.load(std::memory_order_relaxed); }
    /// Seconds the calls spent waiting for a connection, all together.
    [[nodiscard]] double pool_wait_seconds() const noexcept
    {
        return static_cast<double>(wait_nanos_.load(std::memory_order_relaxed)) / 1e9;
    }

    /// Appends the Prometheus text exposition of these counters.
    void render(std::string& out) const;

private:
    std::atomic<std::uint64_t> calls_{0};
    std::atomic<std::uint64_t> opened_{0};
    std::atomic<std::uint64_t> reused_{0};
    std::atomic<std::uint64_t> waits_{0};
    std::atomic<std::uint64_t> timeouts_{0};
    std::atomic<std::uint64_t> rejected_{0};
    std::atomic<std::uint64_t> wait_nanos_{0};
};

}  // namespace execbench::endpoints
