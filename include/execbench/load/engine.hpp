#pragma once

#include "execbench/load/scenario.hpp"
#include "execbench/load/target.hpp"
#include "execbench/stats/histogram.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Why a request failed. The connection is closed and reopened for the next request after every class except
/// the HTTP ones (those keep the connection when the server allows it).
enum class error_class {
    connect_refused,   ///< nothing listening (ECONNREFUSED)
    connect_timeout,   ///< no connection within the connect timeout
    connect_other,     ///< any other connect failure (e.g. out of ports or descriptors)
    reset,             ///< connection reset or closed before the response was complete; write failures
    request_timeout,   ///< no complete response within the request timeout
    bad_response,      ///< bytes that are not an HTTP/1.1 response
    http_4xx,
    http_5xx,
};
inline constexpr std::size_t error_class_count = 8;
/// snake_case name used in CSV columns, e.g. "connect_refused".
std::string_view to_string(error_class c) noexcept;

/// Counts of one load group (foreground or background) over a trial.
struct counters {
    std::uint64_t ok = 0;        ///< complete responses with status < 400
    std::array<std::uint64_t, error_class_count> errors{};
    std::uint64_t unsent = 0;    ///< open shape: requests due before the end that found no free connection
    std::uint64_t bytes_sent = 0;
    std::uint64_t body_bytes_received = 0;

    [[nodiscard]] std::uint64_t error_total() const noexcept;
    [[nodiscard]] std::uint64_t total() const noexcept { return ok + error_total(); }
    void add(const counters& o) noexcept;
};

/// One second of a trial: completions, errors and the latency of successful responses in that second.
struct timeline_second {
    std::uint64_t ok = 0;
    std::uint64_t errors = 0;
    stats::histogram latency{1, 3'600'000'000, 2};  ///< microseconds, 2 significant digits (charts only)
};

/// What one load group measured. Latencies are microseconds of successful responses only; `latency` runs from the
/// intended send time (for shapes other than open it is the moment the request was issued), `service` from the
/// moment the request was actually written.
struct group_measurement {
    counters count;
    stats::histogram latency{};
    stats::histogram service{};
    std::vector<timeline_second> timeline;
    duration wall{};  ///< from the group's start to its last completion
    /// Open shape: how late the send timer fired after the moment it was set for (microseconds). Only the
    /// generator makes this late (a busy or starved event loop), never the server, so it tells a generator-bound
    /// trial apart.
    stats::histogram schedule_lag{1, 3'600'000'000, 2};
};

/// A request ready to send: its bytes are built once.
struct prepared_request {
    std::string bytes;
    unsigned weight = 1;
    std::string label;  ///< "METHOD path"
};
/// Builds the request bytes for `spec` against `t` (Host header, base path, Content-Length, keep-alive).
prepared_request prepare_request(const request_spec& spec, const target& t);

/// Counters the engine publishes while a trial runs (updated a few times per second), read by progress displays.
struct live_counters {
    std::atomic<std::uint64_t> ok{0};
    std::atomic<std::uint64_t> errors{0};
};

/// One load group of a trial.
struct group_plan {
    std::vector<prepared_request> mix;
    load_spec load;
};

/// Everything one trial needs; the engine reads it and does not keep it.
struct trial_plan {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;
    group_plan foreground;
    std::optional<group_plan> background;
    duration background_delay{};
    duration timeout = std::chrono::seconds{60};
    duration connect_timeout = std::chrono::seconds{10};
    unsigned threads = 1;
    std::uint64_t seed = 1;                      ///< think times and mix offsets
    const std::atomic<bool>* stop = nullptr;     ///< set it to end the trial early (SIGINT)
    live_counters* live = nullptr;               ///< optional
};

/// What one trial measured, merged over threads.
struct trial_measurement {
    group_measurement foreground;
    std::optional<group_measurement> background;
    bool stopped = false;                        ///< ended early through `stop`
    double loadgen_cpu_seconds = 0;              ///< bench-load's own user+system CPU during the trial
    duration elapsed{};                          ///< whole trial including connecting and draining
};

/// Runs one trial on `plan.threads` threads, each with its own io_context and connections. Ends by itself:
/// a burst when every request completed or failed, other shapes after their duration plus at most the request
/// timeout. Never prints.
trial_measurement run_trial(const trial_plan& plan);

}  // namespace execbench::load
