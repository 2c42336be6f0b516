#pragma once
// What the engine measures, as plain data: a trial's counts, latencies and timeline (load/record: below the engine
// that fills it and the results that file it).

#include "execbench/load/scenario/scenario.hpp"
#include "execbench/stats/histogram.hpp"
#include "execbench/stats/interval_series.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Why a request failed. The connection is closed and reopened for the next request after every class except
/// the HTTP ones (those keep the connection when the server allows it).
enum class error_class {
    connect_refused,  ///< nothing listening (ECONNREFUSED)
    connect_timeout,  ///< no connection within the connect timeout
    connect_other,    ///< any other connect failure (e.g. out of ports or descriptors)
    tls_handshake,    ///< the TLS handshake failed: the server speaks no TLS, refused ours, or closed during it
    reset,            ///< connection reset or closed before the response was complete; write failures
    request_timeout,  ///< no complete response within the request timeout
    bad_response,     ///< bytes that are not an HTTP/1.1 response, or HTTP/2 frames that break the protocol
    h2_reset,         ///< HTTP/2: the server reset the stream (RST_STREAM) before answering it whole
    h2_goaway,        ///< HTTP/2: the server ended the session with an error (GOAWAY) while the request was in flight
    http_4xx,
    http_5xx,
    /// Still unanswered a scenario's `graceful_stop` after its load ended, and given up (k6's gracefulStop
    /// interrupts such iterations; the last class: error_class_count follows from it).
    interrupted,
};
/// The number of error classes.
inline constexpr std::size_t error_class_count = static_cast<std::size_t>(error_class::interrupted) + 1;
/// snake_case name used in CSV columns, e.g. "connect_refused".
std::string_view to_string(error_class c) noexcept;

/// The server answered every request, each with an HTTP error status: none succeeded and none failed another way.
/// Such a run says the arm cannot answer the scenario (a TLS-only peer asked in cleartext, an endpoint it lacks),
/// whatever its generator's load was: the one rule of the run's status and the report.
[[nodiscard]] bool refused_every_request(double ok, double errors, double http_errors) noexcept;

/// Counts of one load group (foreground or background) over a trial.
struct counters {
    std::uint64_t ok = 0;  ///< complete responses with status < 400
    std::array<std::uint64_t, error_class_count> errors{};
    std::uint64_t unsent = 0;  ///< open shape: requests due before the end that found no free connection
    std::uint64_t bytes_sent = 0;
    std::uint64_t body_bytes_received = 0;
    /// Connections established (TCP connected and, over TLS, the handshake done), pre-connected ones included.
    std::uint64_t connections_opened = 0;
    std::uint64_t tls_full = 0;     ///< of them, TLS handshakes with a full key exchange
    std::uint64_t tls_resumed = 0;  ///< of them, TLS handshakes that resumed a session

    /// Failed requests of every class.
    [[nodiscard]] std::uint64_t error_total() const noexcept;
    /// Completed requests, successful or not.
    [[nodiscard]] std::uint64_t total() const noexcept { return ok + error_total(); }
    /// Failed requests the server answered with a 4xx or 5xx status.
    [[nodiscard]] std::uint64_t http_errors() const noexcept;
    /// Adds `o`'s counts to these.
    void add(const counters& o) noexcept;
};

/// One second of a trial: completions and errors in that second, the requests due in it that never went, and the
/// generator's users and sockets at its last tick. The second's latencies are `group_measurement::latency_seconds`
/// (the interval log's), at the same index.
struct timeline_second {
    std::uint64_t ok = 0;
    std::uint64_t errors = 0;
    std::uint64_t unsent = 0;       ///< open shape: requests due in this second that never found a connection
    std::uint32_t users = 0;        ///< ramp: users active at the second's last tick
    std::uint32_t connections = 0;  ///< the generator's open sockets at the second's last tick
    std::uint32_t in_flight = 0;    ///< requests issued and not yet answered or failed at the second's last tick
    bool sampled = false;           ///< users and connections were read in this second (the issuing phase)
};

/// What one load group measured. Latencies are microseconds of successful responses only; `latency` runs from the
/// intended send time (for shapes other than open it is the moment the request was issued), `service` from the
/// moment the request was actually written.
struct group_measurement {
    counters count;
    stats::histogram latency{};
    stats::histogram service{};
    /// Microseconds from a connection's connect() to its first request's write being possible: the TCP connect
    /// and, over TLS, the handshake; one value per connection opened (connections_opened).
    stats::histogram connect{};
    std::vector<timeline_second> timeline;
    duration wall{};  ///< from the group's start to its last completion
    /// Open shape: how late the send timer fired after the moment it was set for (microseconds). Only the
    /// generator makes this late (a busy or starved event loop), never the server, so it tells a generator-bound
    /// trial apart.
    stats::histogram schedule_lag{1, 3'600'000'000, 2};
    /// `latency` and `service` second by second at their full precision (3 digits): the interval logs (load/hlog) and
    /// the timeline's latency columns.
    stats::interval_series latency_seconds{};
    stats::interval_series service_seconds{};
    /// The group's start on the wall clock: where its seconds sit in an interval log. Zero when it never started.
    std::chrono::system_clock::time_point started_wall{};
};

/// Adds one thread's measurement of a group to `into`, after the trial: counts and histograms add up, second by
/// second for the timeline, and the wall time is the longest of the threads'.
void merge_into(group_measurement& into, const group_measurement& from);

/// What one trial measured, merged over threads.
struct trial_measurement {
    group_measurement foreground;
    std::optional<group_measurement> background;
    bool stopped = false;            ///< ended early through `stop`
    double loadgen_cpu_seconds = 0;  ///< bench-load's own user+system CPU during the trial
    /// bench-load's own CPU in each whole second from the foreground's start (100 = one core busy)
    std::vector<double> loadgen_cpu_percent;
    duration elapsed{};  ///< whole trial including connecting and draining
};

}  // namespace execbench::load
