#pragma once

#include "execbench/load/engine/engine.hpp"
#include "execbench/load/engine/open_schedule.hpp"

#include "connection.hpp"
#include "mix_wheel.hpp"
#include "recorder.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <vector>

namespace execbench::load::detail {

/// A load group on one thread: its share of the connections and the shape that decides when each sends.
///
/// The pacing of every shape is here (group.cpp), except the open shape's, which is wrk2's part and reads best
/// alone (open_loop.cpp, its arithmetic in open_schedule). Recording is the recorder's.
class group {
public:
    /// This thread's share of `plan`: connection (or user) i belongs to thread i % threads. `first_sends`, when
    /// given, counts connections that sent their first request (the background's signal to start the foreground).
    group(boost::asio::io_context& ioc, const group_plan& plan, const trial_plan& trial, unsigned thread_index,
          std::atomic<std::uint64_t>* first_sends);

    /// The trial this group belongs to (timeouts, endpoints).
    [[nodiscard]] const trial_plan& trial() const noexcept { return trial_; }
    /// Requests a connection carries before it closes; 0: no limit.
    [[nodiscard]] std::uint32_t requests_per_connection() const noexcept
    {
        return plan_.load.requests_per_connection;
    }
    /// Requests a connection carries at once (HTTP/1.1 pipelining, or HTTP/2's streams); 1: one at a time.
    [[nodiscard]] std::uint32_t pipeline_depth() const noexcept
    {
        return std::max<std::uint32_t>(1, trial_.http2 ? trial_.streams : plan_.load.pipeline);
    }
    /// This thread's connections of the group.
    [[nodiscard]] std::vector<std::unique_ptr<connection>>& connections() noexcept { return conns_; }
    /// Where the connections record what they measure.
    [[nodiscard]] recorder& record() noexcept { return record_; }

    /// Counts a connection's first request (see the constructor).
    void count_first_send() noexcept
    {
        if (first_sends_)
            first_sends_->fetch_add(1, std::memory_order_relaxed);
    }

    /// Starts issuing at `t0`; the shape's duration runs from there.
    void start(time_point t0);
    /// Called by a connection when its request ended (or was aborted); decides what it does next.
    void on_done(connection& c, time_point now);
    /// Called when a think pause is over.
    void on_thought(connection& c, time_point now);
    /// Periodic work: the deadlines that passed, the end of the duration, ramp control; its cost grows with the
    /// deadlines that passed and the users that came or went, not with the connections.
    void tick(time_point now);
    /// Has the next tick after `at` check connection `c`'s deadline `serial`. A group's connect deadlines come in
    /// the order they fall due, and so do its request deadlines (each kind has one timeout), so each kind is a queue.
    void watch(connection& c, time_point at, std::uint64_t serial, bool connecting)
    {
        (connecting ? connect_deadlines_ : request_deadlines_).push_back({at, &c, serial});
    }
    /// Wakes connection `c` for its think pause `serial` (connection::thought) once `until` has passed. One timer
    /// ends the group's pauses, each rounded up to its millisecond, so it wakes the thread at most once a
    /// millisecond however many users pause: a pause of its own would cost every request a wake-up and two system
    /// calls. Think time is no part of any latency; the rounding lengthens a 1-3 s pause by 0.5 ms on average.
    void pause(connection& c, time_point until, std::uint64_t serial);
    /// A connection's socket was opened or closed.
    void opened() noexcept { ++open_; }
    void closed() noexcept { --open_; }
    /// Stops issuing; requests in flight complete (bounded by their timeout).
    void finish_issuing();
    /// Stops at once: in-flight requests are dropped without being counted.
    void abort();
    /// Issuing is over and every connection is idle.
    [[nodiscard]] bool finished() const noexcept;
    /// Closes every connection of the group on this thread.
    void close_all() noexcept;
    /// This thread's measurement of the group, once it is finished.
    group_measurement take_measurement() { return record_.take(started_); }

    /// Successful responses so far (for live progress).
    [[nodiscard]] std::uint64_t ok_count() const noexcept { return record_.ok_count(); }
    /// Failed requests so far (for live progress).
    [[nodiscard]] std::uint64_t error_count() const noexcept { return record_.error_count(); }

private:
    struct deadline {
        time_point at;
        connection* c;
        std::uint64_t serial;
        bool operator>(const deadline& o) const noexcept { return at > o.at; }
    };
    void expire(std::deque<deadline>& queue, time_point now);
    void arm_pauses();
    /// A ramp's user in slot `s` is wanted now: this thread's users are a prefix of its slots.
    [[nodiscard]] bool wanted(std::uint32_t s) const noexcept { return s < users_; }

    /// The next request of the mix as it stands at `at` (moments only move forward within a trial).
    const prepared_request& pick(time_point at) noexcept;
    duration think_time();
    void next_burst(connection& c);
    /// A closed loop's next requests on `c`: as many as the pipeline takes, all sent at `now` in one write, as wrk's
    /// pipelining scripts send them.
    void next_closed(connection& c, time_point now);
    /// Puts `c` at the back of the open shape's free connections unless it is there already.
    void free(connection& c);
    void control(time_point now);

    // The open shape (open_loop.cpp).
    void init_open(std::uint64_t mine, std::uint64_t total);
    /// Issues every request due by `now` on the free connections; returns how many are due.
    std::uint64_t send_due(time_point now);
    void dispatch(time_point now);
    void arm(time_point when);
    void count_unsent();

    const group_plan& plan_;
    const trial_plan& trial_;
    unsigned threads_;
    std::atomic<std::uint64_t>* first_sends_;
    /// The mix from `from` on (after the load's start), up to the next phase's; one phase when no request has a
    /// `from` or `until`.
    struct mix_phase {
        duration from;
        mix_wheel wheel;
    };
    std::vector<mix_phase> phases_;
    std::size_t phase_ = 0;
    std::mt19937_64 rng_;
    boost::asio::steady_timer schedule_timer_;
    std::vector<std::unique_ptr<connection>> conns_;
    std::vector<std::uint64_t> global_index_;  // ascending
    std::deque<deadline> connect_deadlines_;
    std::deque<deadline> request_deadlines_;
    std::priority_queue<deadline, std::vector<deadline>, std::greater<>> pauses_;  // the end of each pause, earliest first
    boost::asio::steady_timer pause_timer_;
    bool pause_armed_ = false;
    time_point pause_armed_at_{};
    std::uint32_t users_ = 0;  // a ramp's users wanted on this thread: slots [0, users_)
    std::uint32_t open_ = 0;   // connections with a socket open
    std::vector<std::uint64_t> remaining_;
    std::deque<connection*> idle_;  // the open shape's connections with room, longest idle first
    std::vector<bool> in_idle_;     // by slot: the connection is in idle_
    open_schedule schedule_;
    std::uint64_t dispatched_ = 0;
    bool armed_ = false;
    time_point armed_at_{};
    time_point t0_{};
    time_point end_{};
    std::optional<time_point> issuing_ended_;  // when the duration ran out: the graceful stop counts from here
    bool started_ = false;
    bool ending_ = false;
    recorder record_;
};

}  // namespace execbench::load::detail
