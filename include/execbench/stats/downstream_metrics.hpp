#pragma once

#include <optional>
#include <string_view>

namespace execbench::stats {

/// The Prometheus names of what bench-server's downstream client did: its /metrics writes them
/// (endpoints/request_counters.cpp), bench-load reads them back around each trial (load/run).
namespace downstream_metric {
inline constexpr std::string_view calls = "execbench_downstream_calls_total";
inline constexpr std::string_view connections_opened = "execbench_downstream_connections_opened_total";
inline constexpr std::string_view connections_reused = "execbench_downstream_connections_reused_total";
inline constexpr std::string_view pool_waits = "execbench_downstream_pool_waits_total";
inline constexpr std::string_view pool_timeouts = "execbench_downstream_pool_timeouts_total";
inline constexpr std::string_view pool_rejections = "execbench_downstream_pool_rejections_total";
inline constexpr std::string_view pool_wait_seconds = "execbench_downstream_pool_wait_seconds_total";
inline constexpr std::string_view pool_wait_seconds_mean = "execbench_downstream_pool_wait_seconds_mean";
}  // namespace downstream_metric

/// The downstream client's counters at one reading of /metrics (counts since the server started).
struct downstream_reading {
    double calls = 0;
    double connections_opened = 0;
    double connections_reused = 0;
    double pool_waits = 0;
    double pool_timeouts = 0;
    double pool_rejections = 0;
    double pool_wait_seconds = 0;
};

/// The downstream counters of a Prometheus text exposition; empty when it holds none (a server that is not
/// bench-server, or one from before the counters).
std::optional<downstream_reading> parse_downstream_metrics(std::string_view exposition);

/// What happened between two readings of one server: `after` less `before`, counter by counter.
downstream_reading difference(const downstream_reading& after, const downstream_reading& before) noexcept;

}  // namespace execbench::stats
