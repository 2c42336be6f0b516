#include "execbench/endpoints/request_counters.hpp"

#include "execbench/core/text.hpp"
#include "execbench/stats/downstream_metrics.hpp"

#include <charconv>

namespace execbench::endpoints {

namespace {

constexpr std::array<http::status, 13> known_statuses{
    http::status::ok,
    http::status::created,
    http::status::bad_request,
    http::status::not_found,
    http::status::method_not_allowed,
    http::status::payload_too_large,
    http::status::unsupported_media_type,
    http::status::request_header_fields_too_large,
    http::status::internal_server_error,
    http::status::not_implemented,
    http::status::bad_gateway,
    http::status::service_unavailable,
    http::status::gateway_timeout,
};

void append_metric(std::string_view name, std::string_view help, std::string_view type, std::string& out)
{
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

template <class Number>
void append_sample(std::string_view name, Number value, std::string& out)
{
    out.append(name).append(" ");
    append_number(value, out);
    out.append("\n");
}

}  // namespace

std::string_view to_string(endpoint e) noexcept
{
    switch (e) {
    case endpoint::io: return "io";
    case endpoint::cpu: return "cpu";
    case endpoint::cpu_offloaded: return "cpu_offloaded";
    case endpoint::stream: return "stream";
    case endpoint::epoch_millis: return "epoch_millis";
    case endpoint::movies: return "movies";
    case endpoint::health: return "health";
    case endpoint::metrics: return "metrics";
    case endpoint::other: return "other";
    }
    return "other";
}

std::size_t request_counters::slot(http::status s) noexcept
{
    for (std::size_t i = 0; i < known_statuses.size(); ++i)
        if (known_statuses[i] == s)
            return i;
    return status_slots - 1;
}

void request_counters::request_finished(endpoint e, http::status s) noexcept
{
    requests_[static_cast<std::size_t>(e)][slot(s)].fetch_add(1, std::memory_order_relaxed);
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
}

void request_counters::request_rejected(http::status s) noexcept
{
    requests_[static_cast<std::size_t>(endpoint::other)][slot(s)].fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t request_counters::requests(endpoint e, http::status s) const noexcept
{
    return requests_[static_cast<std::size_t>(e)][slot(s)].load(std::memory_order_relaxed);
}

void request_counters::h2_connection_closed(std::uint64_t streams, std::optional<http2::goaway_reason> reason) noexcept
{
    h2_streams_.fetch_add(streams, std::memory_order_relaxed);
    if (reason)
        h2_goaways_[static_cast<std::size_t>(*reason)].fetch_add(1, std::memory_order_relaxed);
}

void request_counters::render(const stats::process_sample& process, std::string& out) const
{
    append_metric("execbench_requests_total", "Requests answered, by endpoint and status.", "counter", out);
    for (std::size_t e = 0; e < endpoint_count; ++e) {
        for (std::size_t s = 0; s < status_slots; ++s) {
            auto n = requests_[e][s].load(std::memory_order_relaxed);
            if (n == 0)
                continue;
            out.append("execbench_requests_total{endpoint=\"").append(to_string(static_cast<endpoint>(e)));
            out.append("\",status=\"");
            if (s < known_statuses.size())
                append_number(static_cast<unsigned>(known_statuses[s]), out);
            else
                out.append("other");
            out.append("\"} ");
            append_number(n, out);
            out.append("\n");
        }
    }
    append_metric("execbench_requests_in_flight", "Requests being served now.", "gauge", out);
    append_sample("execbench_requests_in_flight", in_flight(), out);
    append_metric("execbench_connections_open", "Client connections open now.", "gauge", out);
    append_sample("execbench_connections_open", connections(), out);
    append_metric("execbench_stream_events_produced_total", "Server-Sent Events produced by /stream.", "counter", out);
    append_sample("execbench_stream_events_produced_total", events_produced(), out);
    append_metric("execbench_h2_connections_total", "Connections that chose HTTP/2 (ALPN h2 or the h2c preface).",
                  "counter", out);
    append_sample("execbench_h2_connections_total", h2_connections(), out);
    append_metric("execbench_h2_streams_total", "HTTP/2 streams opened by clients, counted when their connection closed.",
                  "counter", out);
    append_sample("execbench_h2_streams_total", h2_streams(), out);
    append_metric("execbench_h2_goaways_total", "GOAWAY frames sent, by reason.", "counter", out);
    for (std::size_t r = 0; r < http2::goaway_reason_count; ++r) {
        out.append("execbench_h2_goaways_total{reason=\"").append(to_string(static_cast<http2::goaway_reason>(r)));
        out.append("\"} ");
        append_number(h2_goaways_[r].load(std::memory_order_relaxed), out);
        out.append("\n");
    }
    downstream_.render(out);
    tls_.render(out);
    namespace name = stats::process_metric;
    append_metric(name::resident_bytes, "Resident memory size in bytes.", "gauge", out);
    append_sample(name::resident_bytes, process.resident_bytes, out);
    append_metric(name::cpu_seconds, "User and system CPU time spent in seconds.", "counter", out);
    append_sample(name::cpu_seconds, process.cpu_seconds, out);
    append_metric(name::threads, "Threads in the process.", "gauge", out);
    append_sample(name::threads, process.threads, out);
    append_metric(name::open_fds, "Open file descriptors.", "gauge", out);
    append_sample(name::open_fds, process.open_fds, out);
    append_metric(name::open_sockets, "Open sockets.", "gauge", out);
    append_sample(name::open_sockets, process.open_sockets, out);
    append_metric(name::context_switches, "Context switches of all threads, by kind.", "counter", out);
    out.append(name::context_switches).append("{kind=\"voluntary\"} ");
    append_number(process.voluntary_switches, out);
    out.append("\n").append(name::context_switches).append("{kind=\"involuntary\"} ");
    append_number(process.involuntary_switches, out);
    out.append("\n");
}

// Here rather than in a file of its own: it shares the exposition helpers above.
void downstream_counters::render(std::string& out) const
{
    namespace ds = stats::downstream_metric;
    append_metric(ds::calls, "Downstream calls made.", "counter", out);
    append_sample(ds::calls, calls(), out);
    append_metric(ds::connections_opened, "Connections opened to the downstream.", "counter",
                  out);
    append_sample(ds::connections_opened, connections_opened(), out);
    append_metric(ds::connections_reused,
                  "Downstream calls sent on a connection an earlier call had used.", "counter", out);
    append_sample(ds::connections_reused, connections_reused(), out);
    append_metric(ds::pool_waits,
                  "Downstream calls that waited for a connection (--downstream-connections reached).", "counter", out);
    append_sample(ds::pool_waits, pool_waits(), out);
    append_metric(ds::pool_timeouts,
                  "Downstream calls that waited for a connection until the downstream timeout (504).", "counter", out);
    append_sample(ds::pool_timeouts, pool_timeouts(), out);
    append_metric(ds::pool_rejections,
                  "Downstream calls refused at once because the queue for a connection was full (503).", "counter",
                  out);
    append_sample(ds::pool_rejections, pool_rejections(), out);
    append_metric(ds::pool_wait_seconds, "Seconds downstream calls waited for a connection.",
                  "counter", out);
    append_sample(ds::pool_wait_seconds, pool_wait_seconds(), out);
    append_metric(ds::pool_wait_seconds_mean,
                  "Mean seconds a downstream call waited for a connection, over every call made.", "gauge", out);
    auto n = calls();
    append_sample(ds::pool_wait_seconds_mean, n == 0 ? 0.0 : pool_wait_seconds() / static_cast<double>(n),
                  out);
}

std::string_view to_string(handshake_failure why) noexcept
{
    switch (why) {
    case handshake_failure::plain_http: return "plain_http";
    case handshake_failure::tls_error: return "tls_error";
    case handshake_failure::abandoned: return "abandoned";
    }
    return "abandoned";
}

std::uint64_t tls_counters::failed() const noexcept
{
    std::uint64_t n = 0;
    for (const auto& count : failed_)
        n += count.load(std::memory_order_relaxed);
    return n;
}

// Here for the same reason as the downstream counters.
void tls_counters::render(std::string& out) const
{
    constexpr std::string_view done = "execbench_tls_handshakes_total";
    append_metric(done, "TLS handshakes completed, full or resumed (a ticket or the session cache).", "counter", out);
    out.append(done).append("{kind=\"full\"} ");
    append_number(full(), out);
    out.append("\n").append(done).append("{kind=\"resumed\"} ");
    append_number(resumed(), out);
    out.append("\n");
    constexpr std::string_view failed_name = "execbench_tls_handshakes_failed_total";
    append_metric(failed_name,
                  "TLS handshakes that did not complete, by reason: plain_http (cleartext sent to the TLS port, "
                  "answered 400), tls_error (the exchange failed), abandoned (the connection ended first).",
                  "counter", out);
    for (std::size_t i = 0; i < handshake_failure_count; ++i) {
        const auto why = static_cast<handshake_failure>(i);
        out.append(failed_name).append("{reason=\"").append(to_string(why)).append("\"} ");
        append_number(failed(why), out);
        out.append("\n");
    }
}

}  // namespace execbench::endpoints
