#pragma once

#include "execbench/load/scenario/duration.hpp"

#include <chrono>
#include <cstdint>

namespace execbench::load {

/// The open shape's schedule on one thread (wrk2's idea): request i is due at t0 + i / rate whether or not earlier
/// ones have answered, and its latency runs from that intended time, so a slow server cannot hide its queueing
/// (coordinated omission). Pure arithmetic on time points: the engine's group sends what it says is due.
class open_schedule {
public:
    using time_point = std::chrono::steady_clock::time_point;

    open_schedule() = default;
    /// This thread's share of `rate` req/s over `length`: `mine` of the group's `total` connections.
    open_schedule(double rate, duration length, std::uint64_t mine, std::uint64_t total) noexcept;

    /// The schedule starts at `t0`: request 0 is due then.
    void start(time_point t0) noexcept { t0_ = t0; }
    /// When request `index` is due.
    [[nodiscard]] time_point intended(std::uint64_t index) const noexcept;
    /// How many requests are due by `now`: those whose time has come, never more than cap().
    [[nodiscard]] std::uint64_t due(time_point now) const noexcept;
    /// The end of the tick of length `tick` that holds `now`, counted from the start: every wake-up in one tick
    /// sees the same end, so the requests due before it go out together.
    [[nodiscard]] time_point tick_end(time_point now, duration tick) const noexcept;
    /// Every request this thread sends in the duration: rate × length, rounded down.
    [[nodiscard]] std::uint64_t cap() const noexcept { return cap_; }
    /// This thread's requests per second.
    [[nodiscard]] double rate() const noexcept { return rate_; }

private:
    double rate_ = 0;
    std::uint64_t cap_ = 0;
    time_point t0_{};
};

}  // namespace execbench::load
