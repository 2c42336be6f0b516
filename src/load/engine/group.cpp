#include "group.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load::detail {

group::group(boost::asio::io_context& ioc, const group_plan& plan, const trial_plan& trial, unsigned thread_index,
             std::atomic<std::uint64_t>* first_sends)
    : plan_(plan),
      trial_(trial),
      threads_(trial.threads),
      first_sends_(first_sends),
      rng_(trial.seed * 1'000'003 + thread_index),
      schedule_timer_(ioc),
      pause_timer_(ioc)
{
    // The mix changes only where a request joins or leaves it.
    std::vector<duration> moments{duration{}};
    for (const auto& r : plan.mix) {
        moments.push_back(r.from);
        if (r.until != duration::max())
            moments.push_back(r.until);
    }
    std::sort(moments.begin(), moments.end());
    moments.erase(std::unique(moments.begin(), moments.end()), moments.end());
    for (auto at : moments)
        if (mix_wheel w(plan.mix, thread_index * 7919, at); !w.empty())
            phases_.push_back({at, std::move(w)});
    const auto& l = plan.load;
    auto total_conns = connections_of(l);
    std::vector<std::uint64_t> mine;
    for (std::uint64_t i = thread_index; i < total_conns; i += threads_)
        mine.push_back(i);
    for (std::uint32_t s = 0; s < mine.size(); ++s)
        conns_.push_back(std::make_unique<connection>(ioc, *this, s));
    global_index_ = mine;
    if (l.kind == shape::burst) {
        auto base = l.requests / total_conns, extra = l.requests % total_conns;
        for (auto i : mine)
            remaining_.push_back(base + (i < extra ? 1 : 0));
    }
    if (l.kind == shape::open && total_conns > 0)
        init_open(mine.size(), total_conns);
}

const prepared_request& group::pick(time_point at) noexcept
{
    // A gap in the mix (which validate refuses) keeps the phase before it.
    auto since = at - t0_;
    while (phase_ + 1 < phases_.size() && phases_[phase_ + 1].from <= since)
        ++phase_;
    return plan_.mix[phases_[phase_].wheel.next()];
}

void group::start(time_point t0)
{
    if (started_ || ending_)
        return;
    started_ = true;
    t0_ = t0;
    schedule_.start(t0);
    record_.start(t0);
    end_ = t0 + plan_.load.length;
    switch (plan_.load.kind) {
    case shape::burst:
        for (auto& c : conns_)
            next_burst(*c);
        break;
    case shape::closed:
        for (auto& c : conns_)
            next_closed(*c, t0);
        break;
    case shape::open:
        in_idle_.assign(conns_.size(), false);
        for (auto& c : conns_)
            free(*c);
        dispatch(clock::now());
        break;
    case shape::ramp: control(clock::now()); break;
    }
}

void group::on_done(connection& c, time_point now)
{
    if (ending_) {
        if (plan_.load.kind == shape::ramp)
            c.close();
        return;
    }
    switch (plan_.load.kind) {
    case shape::burst: next_burst(c); break;
    case shape::closed: {
        bool thinks = plan_.load.think_max.count() > 0;
        // A pipeline goes again once all of it is answered; an HTTP/2 stream goes again by itself, as h2load's
        // do, unless its user thinks (a pause is the connection's).
        if (now >= end_ || (!c.idle() && (thinks || !c.multiplexed())))
            return;
        if (thinks)
            c.think(think_time());
        else
            next_closed(c, now);
        break;
    }
    case shape::open:
        free(c);
        dispatch(now);
        break;
    case shape::ramp:
        if (!wanted(c.slot()) || now >= end_) {
            c.close();
        } else if (plan_.load.think_max.count() > 0) {
            c.think(think_time());
        } else {
            c.issue(pick(now), now);
        }
        break;
    }
}

void group::on_thought(connection& c, time_point now)
{
    if (ending_ || now >= end_ || (plan_.load.kind == shape::ramp && !wanted(c.slot()))) {
        if (plan_.load.kind == shape::ramp)
            c.close();
        return;
    }
    if (plan_.load.kind == shape::closed)
        next_closed(c, now);
    else
        c.issue(pick(now), now);
}

void group::next_closed(connection& c, time_point now)
{
    for (auto n = c.room(); n > 0; --n)
        c.add(pick(now), now);
    c.send();
}

void group::pause(connection& c, time_point until, std::uint64_t serial)
{
    pauses_.push({std::chrono::ceil<std::chrono::milliseconds>(until), &c, serial});
    arm_pauses();
}

void group::arm_pauses()
{
    if (pauses_.empty() || ending_)
        return;
    auto at = pauses_.top().at;
    if (pause_armed_ && pause_armed_at_ <= at)
        return;
    pause_armed_ = true;
    pause_armed_at_ = at;
    pause_timer_.expires_at(at);
    pause_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec)
            return;  // re-armed for an earlier pause, or issuing ended: the newer wait or nobody ends the pauses
        pause_armed_ = false;
        auto now = clock::now();
        while (!pauses_.empty() && pauses_.top().at <= now) {
            auto p = pauses_.top();
            pauses_.pop();
            p.c->thought(p.serial, now);
        }
        arm_pauses();
    });
}

void group::expire(std::deque<deadline>& queue, time_point now)
{
    while (!queue.empty() && queue.front().at <= now) {
        auto d = queue.front();
        queue.pop_front();
        d.c->check_deadline(now, d.serial);
    }
}

void group::tick(time_point now)
{
    expire(connect_deadlines_, now);
    expire(request_deadlines_, now);
    if (issuing_ended_ && trial_.graceful_stop && now >= *issuing_ended_ + *trial_.graceful_stop)
        for (auto& c : conns_)
            c->interrupt();
    if (!started_ || ending_)
        return;
    // While issuing only: the drain after the duration would add seconds without load to the timeline.
    if (plan_.load.kind != shape::burst || !finished())
        record_.levels(now, plan_.load.kind == shape::ramp ? users_ : 0, open_);
    if (plan_.load.kind == shape::ramp)
        control(now);
    if (plan_.load.kind != shape::burst && now >= end_)
        finish_issuing();
}

void group::finish_issuing()
{
    if (ending_)
        return;
    ending_ = true;
    issuing_ended_ = clock::now();
    schedule_timer_.cancel();
    pause_timer_.cancel();  // the pauses end below; a pending wait would hold the thread up to a pause's length
    if (plan_.load.kind == shape::open && started_)
        count_unsent();
    for (auto& c : conns_)
        if (plan_.load.kind == shape::ramp || plan_.load.kind == shape::closed)
            c->abort_thinking_only();
}

void group::abort()
{
    ending_ = true;
    schedule_timer_.cancel();
    pause_timer_.cancel();
    for (auto& c : conns_)
        c->abort();
}

bool group::finished() const noexcept
{
    if (!started_)
        return ending_;
    bool issuing_done = ending_;
    if (plan_.load.kind == shape::burst)
        issuing_done = issuing_done || std::all_of(remaining_.begin(), remaining_.end(), [](auto r) { return r == 0; });
    if (!issuing_done)
        return false;
    return std::all_of(conns_.begin(), conns_.end(), [](const auto& c) { return c->idle(); });
}

void group::close_all() noexcept
{
    for (auto& c : conns_)
        c->close();
}

duration group::think_time()
{
    auto lo = plan_.load.think_min.count(), hi = plan_.load.think_max.count();
    if (hi <= lo)
        return duration{lo};
    return duration{std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_)};
}

void group::next_burst(connection& c)
{
    // As many as the connection carries at once: one, or an HTTP/2 connection's streams.
    auto& left = remaining_[c.slot()];
    if (left == 0 || c.room() == 0)
        return;
    auto now = clock::now();
    for (; left > 0 && c.room() > 0; --left)
        c.add(pick(now), now);
    c.send();
}

// Ramp shape: activates or retires this thread's users to follow the target.
void group::control(time_point now)
{
    if (now >= end_) {
        finish_issuing();
        return;
    }
    auto target = static_cast<std::uint64_t>(std::llround(ramp_users_at(plan_.load.stages, now - t0_)));
    // Users 0..target-1 are wanted; this thread's share is the prefix of its slots below `target`. Only the users
    // that come or go are touched. One still busy when it comes (it left and its last request is not back) goes on
    // by itself, since on_done and on_thought ask wanted(); one busy when it goes leaves after its request.
    auto want = static_cast<std::uint32_t>(std::lower_bound(global_index_.begin(), global_index_.end(), target) -
                                           global_index_.begin());
    while (users_ < want) {
        auto& c = *conns_[users_++];
        if (c.idle())
            c.issue(pick(now), now);
    }
    while (users_ > want) {
        auto& c = *conns_[--users_];
        if (c.idle())
            c.close();
    }
}

}  // namespace execbench::load::detail
