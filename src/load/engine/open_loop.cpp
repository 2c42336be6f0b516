// The open shape's schedule (wrk2's idea): request i is due at t0 + i / rate whether or not earlier ones have
// answered, and its latency runs from that intended time, so a slow server cannot hide its queueing (coordinated
// omission). A due request waits for a free connection; what is still unsent when the duration ends is counted.
#include "group.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load::detail {

void group::init_open(std::uint64_t mine, std::uint64_t total)
{
    const auto& l = plan_.load;
    rate_ = l.rate * double(mine) / double(total);
    cap_ = static_cast<std::uint64_t>(std::floor(rate_ * std::chrono::duration<double>(l.length).count()));
}

time_point group::intended(std::uint64_t index) const noexcept
{
    return t0_ + std::chrono::duration_cast<duration>(std::chrono::duration<double>(double(index) / rate_));
}

std::uint64_t group::send_due(time_point now)
{
    auto elapsed = std::chrono::duration<double>(now - t0_).count();
    auto due = std::min<std::uint64_t>(cap_, static_cast<std::uint64_t>(std::floor(elapsed * rate_)) + 1);
    while (dispatched_ < due && !idle_.empty()) {
        auto* c = idle_.back();
        idle_.pop_back();
        auto at = intended(dispatched_);
        c->issue(pick(at), at);
        ++dispatched_;
    }
    return due;
}

// Sends every request that is due on a free connection, then sleeps until the next is due.
void group::dispatch(time_point now)
{
    if (ending_)
        return;
    auto due = send_due(now);
    if (dispatched_ >= cap_) {
        if (now >= end_)
            finish_issuing();
        else
            arm(end_);
        return;
    }
    if (dispatched_ < due)
        return;  // backlog: the next completion sends it
    arm(std::min(intended(dispatched_), end_));
}

void group::arm(time_point when)
{
    if (armed_ && armed_at_ <= when)
        return;
    armed_ = true;
    armed_at_ = when;
    schedule_timer_.expires_at(when);
    schedule_timer_.async_wait([this](const boost::system::error_code& ec) {
        armed_ = false;
        if (ec || ending_)
            return;
        auto now = clock::now();
        record_.timer_lag(armed_at_, now);
        if (now >= end_) {
            finish_issuing();
            return;
        }
        dispatch(now);
    });
}

void group::count_unsent()
{
    // The last requests are due just before the end; a wake-up that comes late (the generator's own lag) must not
    // turn them into unsent ones while a connection is free. Only those no connection could take are the server's.
    send_due(clock::now());
    // Counted by the second each was due, so the timeline shows when the schedule outran the connections.
    for (; dispatched_ < cap_; ++dispatched_)
        record_.unsent(intended(dispatched_));
}

}  // namespace execbench::load::detail
