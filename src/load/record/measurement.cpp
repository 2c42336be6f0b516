#include "execbench/load/record/measurement.hpp"

#include <algorithm>
#include <numeric>

namespace execbench::load {

std::string_view to_string(error_class c) noexcept
{
    switch (c) {
    case error_class::connect_refused: return "connect_refused";
    case error_class::connect_timeout: return "connect_timeout";
    case error_class::connect_other: return "connect_other";
    case error_class::tls_handshake: return "tls_handshake";
    case error_class::reset: return "reset";
    case error_class::request_timeout: return "request_timeout";
    case error_class::bad_response: return "bad_response";
    case error_class::h2_reset: return "h2_reset";
    case error_class::h2_goaway: return "h2_goaway";
    case error_class::http_4xx: return "http_4xx";
    case error_class::http_5xx: return "http_5xx";
    case error_class::interrupted: return "interrupted";
    }
    return "?";
}

bool refused_every_request(double ok, double errors, double http_errors) noexcept
{
    return ok == 0 && errors > 0 && http_errors == errors;
}

std::uint64_t counters::error_total() const noexcept
{
    return std::accumulate(errors.begin(), errors.end(), std::uint64_t{0});
}

std::uint64_t counters::http_errors() const noexcept
{
    return errors[static_cast<std::size_t>(error_class::http_4xx)] +
           errors[static_cast<std::size_t>(error_class::http_5xx)];
}

void counters::add(const counters& o) noexcept
{
    ok += o.ok;
    for (std::size_t i = 0; i < errors.size(); ++i)
        errors[i] += o.errors[i];
    unsent += o.unsent;
    bytes_sent += o.bytes_sent;
    body_bytes_received += o.body_bytes_received;
    connections_opened += o.connections_opened;
    tls_full += o.tls_full;
    tls_resumed += o.tls_resumed;
}

void merge_into(group_measurement& into, const group_measurement& from)
{
    into.count.add(from.count);
    // Every histogram of a group has the same bounds and precision, so merging cannot fail.
    (void)into.latency.merge(from.latency);
    (void)into.service.merge(from.service);
    (void)into.connect.merge(from.connect);
    (void)into.schedule_lag.merge(from.schedule_lag);
    if (from.timeline.size() > into.timeline.size())
        into.timeline.resize(from.timeline.size());
    for (std::size_t i = 0; i < from.timeline.size(); ++i) {
        into.timeline[i].ok += from.timeline[i].ok;
        into.timeline[i].errors += from.timeline[i].errors;
        into.timeline[i].unsent += from.timeline[i].unsent;
        // Each thread holds its share of the users and connections, so their levels add up.
        into.timeline[i].users += from.timeline[i].users;
        into.timeline[i].connections += from.timeline[i].connections;
        into.timeline[i].in_flight += from.timeline[i].in_flight;
        into.timeline[i].sampled = into.timeline[i].sampled || from.timeline[i].sampled;
    }
    (void)into.latency_seconds.merge(from.latency_seconds);
    (void)into.service_seconds.merge(from.service_seconds);
    // The threads start together; the earliest start stands for the group.
    if (into.started_wall == std::chrono::system_clock::time_point{} ||
        (from.started_wall != std::chrono::system_clock::time_point{} && from.started_wall < into.started_wall))
        into.started_wall = from.started_wall;
    into.wall = std::max(into.wall, from.wall);
}

}  // namespace execbench::load
