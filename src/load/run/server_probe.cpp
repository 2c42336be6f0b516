#include "execbench/load/run/server_probe.hpp"

#include "execbench/load/engine/target.hpp"

#include "execbench/load/run/http_request.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace execbench::load {

namespace {

/// Reads a remote server's process figures from its Prometheus /metrics.
stats::sample_source metrics_source(const target& t)
{
    // The target's TLS context is shared: the sampler may outlive the caller's copy of the target.
    return [peer = detail::request_peer::of(t),
            keep = t.tls](stats::sample_depth) -> std::optional<stats::process_sample> {
        auto r = detail::http_get(peer, "/metrics", std::chrono::milliseconds{1000});
        if (!r || r->status != 200)
            return std::nullopt;
        return stats::parse_process_metrics(r->body);
    };
}

}  // namespace

observed_server probe_server(const target& t, std::optional<pid_t> server_pid)
{
    observed_server info;
    info.local = t.local;
    std::optional<pid_t> reported_pid;
    if (auto h =
            detail::http_get(detail::request_peer::of(t), t.base_path + "/health", std::chrono::milliseconds{2000});
        h && h->status == 200) {
        info.health_json = h->body;
        auto j = nlohmann::json::parse(h->body, nullptr, false);
        if (j.is_object() && j.contains("model") && j["model"].is_string())
            info.model = j["model"].get<std::string>();
        if (j.is_object() && j.contains("pid") && j["pid"].is_number_integer())
            reported_pid = static_cast<pid_t>(j["pid"].get<long long>());
    }
    if (server_pid)
        info.pid = server_pid;
    else if (t.local)
        info.pid = reported_pid ? reported_pid : stats::find_listening_pid(t.port);
    if (info.pid)
        info.sampling = "proc";
    else if (!t.local)
        info.sampling = "metrics";
    return info;
}

std::unique_ptr<stats::periodic_sampler> server_sampler(const observed_server& server, const target& t,
                                                        std::chrono::milliseconds period)
{
    // The fd walk (one readlink per fd) costs about 3 us a socket: at 17,000 sockets every 5 s it was 1.5 % of a
    // core (docs/methodology.md, the observer effect). Every 30 s, besides a trial's first and last readings, keeps
    // it under 0.5 %; the kernel's fd count stands in between.
    if (server.pid)
        return std::make_unique<stats::periodic_sampler>(stats::proc_source(*server.pid), period,
                                                         std::chrono::seconds{30});
    if (!t.local)
        // A scrape is an HTTP request to the measured server: no more often than 5 Hz.
        return std::make_unique<stats::periodic_sampler>(metrics_source(t),
                                                         std::max(period, std::chrono::milliseconds{200}));
    return nullptr;
}

}  // namespace execbench::load
