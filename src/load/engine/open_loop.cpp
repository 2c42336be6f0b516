// The open shape: the schedule (open_schedule, wrk2's idea) says which requests are due; a due request waits for a
// free connection, and what is still unsent when the duration ends is counted.
#include "group.hpp"

#include <algorithm>

namespace execbench::load::detail {

void group::init_open(std::uint64_t mine, std::uint64_t total)
{
    schedule_ = open_schedule(plan_.load.rate, plan_.load.length, mine, total);
}

std::uint64_t group::send_due(time_point now)
{
    auto due = schedule_.due(now);
    while (dispatched_ < due && !idle_.empty()) {
        // The connection idle longest goes next, as k6's arrival-rate executors hand out VUs (a FIFO channel): every
        // connection carries requests. Taking the latest freed would leave all but rate × latency of them idle
        // until the server's keep-alive timeout closed them mid-run (60 s: 9,000 of 10,000 at once). With
        // pipelining it takes what is due up to its depth in one write, and goes to the back if it has room left.
        auto* c = idle_.front();
        idle_.pop_front();
        in_idle_[c->slot()] = false;
        for (auto n = c->room(); n > 0 && dispatched_ < due; --n, ++dispatched_) {
            auto at = schedule_.intended(dispatched_);
            c->add(pick(at), at);
        }
        c->send();
        if (c->room() > 0)
            free(*c);
    }
    return due;
}

void group::free(connection& c)
{
    if (in_idle_[c.slot()])
        return;
    in_idle_[c.slot()] = true;
    idle_.push_back(&c);
}

namespace {

// A wake-up costs this generator more than the request it sends (on loopback each send also runs the server's
// receive path, and a paravirtualised CPU pays again whenever the kernel re-enables interrupts after a sleep), so a
// wake-up sends every request due before the end of the current tick, not only those due now: at 20,000 req/s one
// wake-up per 20 requests instead of one each. The ticks are fixed from the schedule's start, not counted from each
// wake-up: a window that slid with every answer would find one newly due request per answer and send it alone, one
// write per request even when pipelining could carry sixteen. Each request keeps its own intended time; one that
// goes before it is measured from when it went (recorder::ok), so sending early never shortens a latency, and a
// request that goes late is still measured from when it was due. wrk2 sends at millisecond steps too, but late and
// measured from the step.
constexpr auto send_tick = std::chrono::milliseconds{1};

}  // namespace

// Sends every request due before the tick's end on a free connection, then sleeps until the next is due.
void group::dispatch(time_point now)
{
    if (ending_)
        return;
    auto due = send_due(schedule_.tick_end(now, send_tick));
    if (dispatched_ >= schedule_.cap()) {
        if (now >= end_)
            finish_issuing();
        else
            arm(end_);
        return;
    }
    if (dispatched_ < due)
        return;  // backlog: the next completion sends it
    arm(std::min(schedule_.intended(dispatched_), end_));
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
    for (; dispatched_ < schedule_.cap(); ++dispatched_)
        record_.unsent(schedule_.intended(dispatched_));
}

}  // namespace execbench::load::detail
