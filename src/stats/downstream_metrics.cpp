#include "execbench/stats/downstream_metrics.hpp"

#include "execbench/stats/exposition.hpp"

namespace execbench::stats {

std::optional<downstream_reading> parse_downstream_metrics(std::string_view exposition)
{
    downstream_reading r;
    bool any = false;
    for_each_sample(exposition, [&](std::string_view name, std::string_view, double v) {
        namespace m = downstream_metric;
        double* field = name == m::calls                ? &r.calls
                        : name == m::connections_opened ? &r.connections_opened
                        : name == m::connections_reused ? &r.connections_reused
                        : name == m::pool_waits         ? &r.pool_waits
                        : name == m::pool_timeouts      ? &r.pool_timeouts
                        : name == m::pool_rejections    ? &r.pool_rejections
                        : name == m::pool_wait_seconds  ? &r.pool_wait_seconds
                                                        : nullptr;
        if (field == nullptr)
            return;
        *field = v;
        any = true;
    });
    if (!any)
        return std::nullopt;
    return r;
}

downstream_reading difference(const downstream_reading& after, const downstream_reading& before) noexcept
{
    // A counter that went down means the server restarted between the readings: what it counted since is the figure.
    auto less = [](double a, double b) { return a >= b ? a - b : a; };
    return {less(after.calls, before.calls),
            less(after.connections_opened, before.connections_opened),
            less(after.connections_reused, before.connections_reused),
            less(after.pool_waits, before.pool_waits),
            less(after.pool_timeouts, before.pool_timeouts),
            less(after.pool_rejections, before.pool_rejections),
            less(after.pool_wait_seconds, before.pool_wait_seconds)};
}

}  // namespace execbench::stats
