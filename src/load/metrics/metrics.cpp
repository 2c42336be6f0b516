#include "execbench/load/metrics/metrics.hpp"

#include <stdexcept>

namespace execbench::load {

const std::vector<metric_info>& metric_table()
{
    using enum metric_source;
    auto row = [](std::string_view column, std::string_view label, std::string_view unit, better direction,
                  metric_source source) {
        return metric_info{std::string(column), std::string(label), std::string(unit), direction, source};
    };
    static const std::vector<metric_info> rows{
        // Requests and sockets higher-is-better, everything else lower-is-better, after the Loom/WebFlux study.
        row(metric::requests_ok, "requests ok", "", better::higher, requests),
        row(metric::requests_error, "requests error", "", better::lower, requests),
        row(metric::requests_per_second, "req/s", "req/s", better::higher, requests),
        row(metric::per_second_requests_p50, "req/s per second p50", "req/s", better::higher, per_second),
        row(metric::per_second_requests_p90, "req/s per second p90", "req/s", better::higher, per_second),
        row(metric::per_second_requests_max, "req/s per second max", "req/s", better::higher, per_second),
        row(metric::latency_millis_min, "latency min", "ms", better::lower, requests),
        row(metric::latency_millis_p50, "latency p50", "ms", better::lower, requests),
        row(metric::latency_millis_p90, "latency p90", "ms", better::lower, requests),
        row(metric::latency_millis_p99, "latency p99", "ms", better::lower, requests),
        row(metric::latency_millis_max, "latency max", "ms", better::lower, requests),
        // CPU per request, not CPU %: an arm that serves fewer requests in the same wall time uses less CPU % for
        // less work, and at equal work an arm that took three times as long spreads it thinner (pool's "win" of CPU
        // max on io-600). So CPU ranks per request only; CPU max, RSS and threads are shown beside, never ranked
        // (memory per connection is the memory suite's own figure). Switches count per request at equal work.
        row(metric::server_cpu_seconds_per_1k_requests, "CPU s per 1k requests", "s", better::lower, server_sampled),
        row(metric::server_voluntary_switches, "voluntary ctx switches", "", better::lower, server_equal_work),
        row(metric::server_involuntary_switches, "involuntary ctx switches", "", better::lower, server_equal_work),
        row(metric::server_sockets_max, "sockets max", "", better::higher, client_set),
        // Shown beside the figures, never ranked.
        row(metric::server_cpu_percent_max, "CPU max", "%", better::lower, evidence),
        row(metric::server_rss_mb_avg, "RSS avg", "MiB", better::lower, evidence),
        row(metric::server_rss_mb_max, "RSS max", "MiB", better::lower, evidence),
        row(metric::server_threads_max, "threads max", "", better::lower, evidence),
        row(metric::wall_millis, "wall time", "ms", better::lower, evidence),
        row(metric::latency_millis_p999, "latency p99.9", "ms", better::lower, evidence),
        row(metric::requests_unsent, "unsent", "", better::lower, evidence),
        row(metric::server_cpu_percent_avg, "CPU avg", "%", better::lower, evidence),
        row(metric::loadgen_cpu_percent, "load generator CPU", "%", better::lower, evidence),
        row(metric::kernel_listen_overflows, "kernel: listen queue overflows", "", better::lower, evidence),
        row(metric::kernel_listen_drops, "kernel: listen drops", "", better::lower, evidence),
        row(metric::kernel_syn_retransmits, "kernel: SYN retransmits", "", better::lower, evidence),
        row(metric::kernel_tcp_timeouts, "kernel: TCP timeouts", "", better::lower, evidence),
        row(metric::kernel_active_opens, "kernel: active opens (connects)", "", better::lower, evidence),
        row(metric::kernel_passive_opens, "kernel: passive opens (accepts)", "", better::lower, evidence),
        row(metric::kernel_resets_sent, "kernel: resets sent", "", better::lower, evidence),
        row(metric::kernel_aborts, "kernel: aborted connections", "", better::lower, evidence),
        row(metric::kernel_time_wait, "kernel: TIME_WAIT at the trial's end", "", better::lower, evidence),
        row(metric::downstream_calls, "downstream: calls", "", better::lower, evidence),
        row(metric::downstream_connections_opened, "downstream: connections opened", "", better::lower, evidence),
        row(metric::downstream_connections_reused, "downstream: connections reused", "", better::higher, evidence),
        row(metric::downstream_pool_waits, "downstream: waits for a connection", "", better::lower, evidence),
        row(metric::downstream_pool_timeouts, "downstream: waits timed out", "", better::lower, evidence),
        row(metric::downstream_pool_rejections, "downstream: calls refused, queue full", "", better::lower, evidence),
        row(metric::downstream_wait_millis_mean, "downstream: mean wait for a connection", "ms", better::lower,
            evidence),
    };
    return rows;
}

const metric_info& metric_of(std::string_view column)
{
    for (const auto& m : metric_table())
        if (m.column == column)
            return m;
    throw std::out_of_range("not a metric of the table: " + std::string(column));
}

std::optional<double> cpu_seconds_per_1k_requests(double cpu_percent_avg, double wall_millis, double requests_ok)
{
    if (requests_ok <= 0 || cpu_percent_avg <= 0)
        return std::nullopt;
    return cpu_percent_avg / 100 * wall_millis / 1000 / requests_ok * 1000;
}

}  // namespace execbench::load
