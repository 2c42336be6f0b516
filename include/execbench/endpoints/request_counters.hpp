#pragma once

#include "execbench/endpoints/downstream_counters.hpp"
#include "execbench/endpoints/tls_counters.hpp"
#include "execbench/http/response.hpp"
#include "execbench/http2/session_limits.hpp"
#include "execbench/stats/process.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::endpoints {

/// The endpoints a request can be routed to; `other` collects unknown paths and unparsable requests.
enum class endpoint : std::uint8_t {
    io,
    cpu,
    cpu_offloaded,
    stream,
    epoch_millis,
    movies,
    health,
    metrics,
    other,  ///< the last endpoint: endpoint_count follows from it
};
inline constexpr std::size_t endpoint_count = static_cast<std::size_t>(endpoint::other) + 1;

/// The endpoint's label in metrics, e.g. "cpu_offloaded".
std::string_view to_string(endpoint e) noexcept;

/// Request counters every model updates; lock-free, read by /metrics.
class request_counters {
public:
    /// A request has been parsed and is being served.
    void request_started() noexcept { in_flight_.fetch_add(1, std::memory_order_relaxed); }
    /// A request's response has been written (or abandoned) with this status.
    void request_finished(endpoint e, http::status s) noexcept;
    /// A response produced without a parsed request (malformed input, overload).
    void request_rejected(http::status s) noexcept;
    /// One `/stream` event was produced.
    void event_produced() noexcept { events_produced_.fetch_add(1, std::memory_order_relaxed); }
    void connection_opened() noexcept { connections_.fetch_add(1, std::memory_order_relaxed); }
    void connection_closed() noexcept { connections_.fetch_sub(1, std::memory_order_relaxed); }

    [[nodiscard]] std::int64_t in_flight() const noexcept { return in_flight_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t events_produced() const noexcept
    {
        return events_produced_.load(std::memory_order_relaxed);
    }
    [[nodiscard]] std::int64_t connections() const noexcept { return connections_.load(std::memory_order_relaxed); }
    /// A connection chose HTTP/2 (ALPN `h2`, or the h2c preface).
    void h2_connection_opened() noexcept { h2_connections_.fetch_add(1, std::memory_order_relaxed); }
    /// An HTTP/2 connection closed having had `streams` streams opened by its client and sent GOAWAY for `reason`
    /// when it did.
    void h2_connection_closed(std::uint64_t streams, std::optional<http2::goaway_reason> reason) noexcept;
    [[nodiscard]] std::uint64_t h2_connections() const noexcept
    {
        return h2_connections_.load(std::memory_order_relaxed);
    }
    [[nodiscard]] std::uint64_t h2_streams() const noexcept { return h2_streams_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t h2_goaways(http2::goaway_reason r) const noexcept
    {
        return h2_goaways_[static_cast<std::size_t>(r)].load(std::memory_order_relaxed);
    }
    /// What the downstream client did (stage-1 calls).
    [[nodiscard]] downstream_counters& downstream() noexcept { return downstream_; }
    [[nodiscard]] const downstream_counters& downstream() const noexcept { return downstream_; }
    /// The TLS handshakes (under `--tls`).
    [[nodiscard]] tls_counters& tls() noexcept { return tls_; }
    [[nodiscard]] const tls_counters& tls() const noexcept { return tls_; }
    /// Requests counted for an endpoint and status.
    [[nodiscard]] std::uint64_t requests(endpoint e, http::status s) const noexcept;

    /// Appends the Prometheus text exposition of all counters plus the process figures in `process`.
    void render(const stats::process_sample& process, std::string& out) const;

private:
    static constexpr std::size_t status_slots = 16;
    static std::size_t slot(http::status s) noexcept;

    std::array<std::array<std::atomic<std::uint64_t>, status_slots>, endpoint_count> requests_{};
    std::atomic<std::int64_t> in_flight_{0};
    std::atomic<std::uint64_t> events_produced_{0};
    std::atomic<std::int64_t> connections_{0};
    std::atomic<std::uint64_t> h2_connections_{0};
    std::atomic<std::uint64_t> h2_streams_{0};
    std::array<std::atomic<std::uint64_t>, http2::goaway_reason_count> h2_goaways_{};
    downstream_counters downstream_;
    tls_counters tls_;
};

/// Counts a connection open for as long as it lives, so no path can forget to count it closed.
class connection_scope {
public:
    explicit connection_scope(request_counters& counters) noexcept : counters_(counters)
    {
        counters_.connection_opened();
    }
    ~connection_scope() { counters_.connection_closed(); }
    connection_scope(const connection_scope&) = delete;
    connection_scope& operator=(const connection_scope&) = delete;

private:
    request_counters& counters_;
};

}  // namespace execbench::endpoints
