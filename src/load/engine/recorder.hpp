#pragma once

#include "execbench/load/record/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

namespace execbench::load::detail {

using clock = std::chrono::steady_clock;
using time_point = clock::time_point;

/// One thread's recording of one load group: plain counters and histograms, no sharing on the request path. The
/// threads' recordings are merged after the trial (merge_into).
class recorder {
public:
    recorder()
    {
        m_.latency.reset();
        m_.service.reset();
        m_.connect.reset();
    }

    /// The group started at `t0`: the timeline counts seconds from there.
    void start(time_point t0) noexcept
    {
        t0_ = t0;
        last_completion_ = t0;
        m_.started_wall = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
            std::chrono::system_clock::now() - (clock::now() - t0));
    }

    /// A successful response completed at `now` for a request meant to go at `intended` and written at `sent`.
    /// Its latency runs from the intended time, or from the write when the request went before it was due (the
    /// open loop's send window), so sending early never shortens a latency.
    void ok(time_point now, time_point intended, time_point sent)
    {
        ++m_.count.ok;
        auto lat = micros(now - std::min(intended, sent));
        auto service = micros(now - sent);
        m_.latency.record(lat);
        m_.service.record(service);
        m_.latency_seconds.record(second_index(now), lat);
        m_.service_seconds.record(second_index(now), service);
        auto& sec = second(now);
        ++sec.ok;
        last_completion_ = now;
    }

    /// A request failed at `now`.
    void error(error_class c, time_point now)
    {
        ++m_.count.errors[static_cast<std::size_t>(c)];
        ++second(now).errors;
        last_completion_ = now;
    }

    /// A connection became usable `took` after its connect began; `tls`: after a handshake, `resumed` or full.
    void connected(duration took, bool tls, bool resumed)
    {
        ++m_.count.connections_opened;
        m_.connect.record(micros(took));
        if (tls)
            ++(resumed ? m_.count.tls_resumed : m_.count.tls_full);
    }

    /// Bytes written.
    void sent(std::size_t n) noexcept { m_.count.bytes_sent += n; }
    /// Body bytes of a complete response.
    void body(std::uint64_t n) noexcept { m_.count.body_bytes_received += n; }
    /// Open shape: the send timer set for `due` fired at `now`.
    void timer_lag(time_point due, time_point now) { m_.schedule_lag.record(micros(now - due)); }
    /// Open shape: a request due at `due` never went.
    void unsent(time_point due)
    {
        ++m_.count.unsent;
        ++second(due).unsent;
    }
    /// A connection took a request to send (connecting, waiting to retry, writing or reading until it ends).
    void request_began() noexcept { ++in_flight_; }
    /// That request was answered, failed, or dropped when issuing ended.
    void request_ended() noexcept { --in_flight_; }

    /// The users active, the sockets open and the requests in flight on this thread at `now` (the last reading of
    /// a second stands).
    void levels(time_point now, std::uint32_t users, std::uint32_t connections)
    {
        auto& sec = second(now);
        sec.users = users;
        sec.connections = connections;
        sec.in_flight = in_flight_;
        sec.sampled = true;
    }

    /// Successful responses so far.
    [[nodiscard]] std::uint64_t ok_count() const noexcept { return m_.count.ok; }
    /// Failed requests so far.
    [[nodiscard]] std::uint64_t error_count() const noexcept { return m_.count.error_total(); }

    /// The recording, with the wall time from the start to the last completion (zero when it never started).
    group_measurement take(bool started)
    {
        m_.wall = started ? last_completion_ - t0_ : duration{};
        return std::move(m_);
    }

private:
    static std::int64_t micros(duration d) noexcept
    {
        return std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::microseconds>(d).count());
    }

    std::size_t second_index(time_point now) const noexcept
    {
        return static_cast<std::size_t>(
            std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(now - t0_).count()));
    }

    timeline_second& second(time_point now)
    {
        auto s = second_index(now);
        if (s >= m_.timeline.size())
            m_.timeline.resize(s + 1);
        return m_.timeline[s];
    }

    group_measurement m_;
    std::uint32_t in_flight_ = 0;
    time_point t0_{};
    time_point last_completion_{};
};

}  // namespace execbench::load::detail
