#include "execbench/load/record/tcp_counters.hpp"

#include "execbench/load/metrics/metrics.hpp"

namespace execbench::load {

kernel_counters kernel_difference(const kernel_counters& before, const kernel_counters& after)
{
    auto d = [](std::uint64_t a, std::uint64_t b) { return b > a ? b - a : 0; };
    kernel_counters k;
    k.listen_overflows = d(before.listen_overflows, after.listen_overflows);
    k.listen_drops = d(before.listen_drops, after.listen_drops);
    k.syn_retransmits = d(before.syn_retransmits, after.syn_retransmits);
    k.timeouts = d(before.timeouts, after.timeouts);
    k.active_opens = d(before.active_opens, after.active_opens);
    k.passive_opens = d(before.passive_opens, after.passive_opens);
    k.resets_sent = d(before.resets_sent, after.resets_sent);
    k.aborts = d(before.aborts, after.aborts);
    k.time_wait = after.time_wait;
    return k;
}

std::vector<std::pair<std::string_view, double>> kernel_columns(const kernel_counters& k)
{
    return {{metric::kernel_listen_overflows, double(k.listen_overflows)},
            {metric::kernel_listen_drops, double(k.listen_drops)},
            {metric::kernel_syn_retransmits, double(k.syn_retransmits)},
            {metric::kernel_tcp_timeouts, double(k.timeouts)},
            {metric::kernel_active_opens, double(k.active_opens)},
            {metric::kernel_passive_opens, double(k.passive_opens)},
            {metric::kernel_resets_sent, double(k.resets_sent)},
            {metric::kernel_aborts, double(k.aborts)},
            {metric::kernel_time_wait, double(k.time_wait)}};
}

std::vector<std::pair<std::string_view, double>> downstream_columns(const stats::downstream_reading& d)
{
    return {{metric::downstream_calls, d.calls},
            {metric::downstream_connections_opened, d.connections_opened},
            {metric::downstream_connections_reused, d.connections_reused},
            {metric::downstream_pool_waits, d.pool_waits},
            {metric::downstream_pool_timeouts, d.pool_timeouts},
            {metric::downstream_pool_rejections, d.pool_rejections},
            {metric::downstream_wait_millis_mean, d.calls > 0 ? d.pool_wait_seconds * 1000.0 / d.calls : 0.0}};
}

}  // namespace execbench::load
