#include "execbench/load/run/preflight.hpp"

#include "execbench/core/text.hpp"
#include "execbench/http/url.hpp"
#include "execbench/load/run/kernel_counters.hpp"
#include "execbench/load/scenario/open_files.hpp"

#include "execbench/load/engine/engine.hpp"
#include "execbench/load/run/http_request.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <cstdio>

namespace execbench::load {

namespace {

/// What an HTTP/2 pre-flight's one failure says, by its class.
std::string h2_failure(error_class c, const target& t, std::chrono::milliseconds timeout)
{
    auto where = t.host_header;
    switch (c) {
    case error_class::connect_refused: return "connection refused: nothing listens on " + where;
    case error_class::connect_timeout: return "no connection within " + std::to_string(timeout.count()) + "ms";
    case error_class::request_timeout: return "no answer within " + std::to_string(timeout.count()) + "ms";
    case error_class::interrupted: return "still unanswered at the scenario's graceful stop";
    case error_class::tls_handshake:
        return "the TLS handshake failed, or the server did not select h2 by ALPN: it does not speak HTTP/2 over TLS "
               "(turn HTTP/2 on in the server, or drop --http2)";
    case error_class::bad_response:
    case error_class::reset:
        return t.tls ? std::string("the connection broke in HTTP/2 (h2 over TLS)")
                     : "no HTTP/2 answer to h2c with prior knowledge: the server may speak only HTTP/1.1 on this "
                       "port (turn HTTP/2 on in the server, or drop --http2)";
    case error_class::h2_reset: return "the server reset the stream (RST_STREAM)";
    case error_class::h2_goaway: return "the server ended the session with GOAWAY";
    case error_class::http_4xx: return "answered 4xx";
    case error_class::http_5xx: return "answered 5xx";
    case error_class::connect_other: break;
    }
    return "the connection failed";
}

/// The pre-flight over HTTP/2: the scenario's first request once, through the engine's own h2 client (the one
/// HTTP/2 client here), on a connection of its own.
result<preflight_answer> preflight_h2(const scenario& s, const target& t, std::chrono::milliseconds timeout)
{
    trial_plan p;
    p.endpoints = t.endpoints;
    p.tls = t.tls.get();
    p.tls_host = t.host;
    p.http2 = true;
    p.foreground.mix.push_back(prepare_request(s.mix.front(), t));
    p.foreground.load.kind = shape::burst;
    p.foreground.load.requests = p.foreground.load.connections = 1;
    p.foreground.load.preconnect = false;
    p.timeout = p.connect_timeout = timeout;
    auto m = run_trial(p);
    const auto& count = m.foreground.count;
    if (count.ok == 1)
        return preflight_answer{200, std::chrono::duration_cast<std::chrono::microseconds>(m.elapsed)};
    for (std::size_t i = 0; i < error_class_count; ++i)
        if (count.errors[i] > 0)
            return fail(h2_failure(static_cast<error_class>(i), t, timeout));
    return fail("no answer");
}

}  // namespace

result<preflight_answer> preflight(const scenario& s, const target& t, std::chrono::milliseconds timeout)
{
    if (s.mix.empty())
        return fail("the scenario has no request");
    if (s.protocol == http_protocol::h2) {
        const auto& r = s.mix.front();
        auto answer = preflight_h2(s, t, timeout);
        if (!answer)
            return fail(r.method + " " + std::string(t.scheme()) + "://" + t.host_header + t.base_path + r.path +
                        " over HTTP/2: " + answer.err().message);
        return answer;
    }
    const auto& r = s.mix.front();
    auto path = t.base_path + r.path;
    auto what = r.method + " " + std::string(t.scheme()) + "://" + t.host_header + path;
    const auto sent = std::chrono::steady_clock::now();
    auto answer = detail::http_request(detail::request_peer::of(t), r.method, path, r.headers, r.body, timeout);
    const auto latency =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - sent);
    if (!answer)
        return fail(what + ": " + answer.err().message);
    if (answer->status < 200 || answer->status >= 300) {
        auto body = answer->body.substr(0, 200);
        for (auto& c : body)
            if (c == '\n' || c == '\r')
                c = ' ';
        return fail(what + ": answered " + std::to_string(answer->status) + (body.empty() ? "" : ": " + body));
    }
    return preflight_answer{answer->status, latency};
}

std::optional<std::string> open_loop_capacity_warning(const scenario& s, std::chrono::microseconds latency)
{
    if (s.load.kind != shape::open || s.load.rate <= 0 || latency.count() <= 0)
        return std::nullopt;
    const double seconds = static_cast<double>(latency.count()) / 1e6;
    // Each connection carries one request at a time, or its HTTP/2 streams.
    const double carried = double(s.load.connections) * s.streams / seconds;
    if (carried >= s.load.rate)
        return std::nullopt;
    const auto needed = static_cast<unsigned long long>(std::ceil(s.load.rate * seconds));
    char text[400];
    std::snprintf(text, sizeof text,
                  "%u connection(s) cannot carry --rate %g at the pre-flight latency of %.1f ms: one request in "
                  "flight per connection carries at most %.0f req/s (Little's law: rate x latency = %llu "
                  "connections needed), so the run will fall BEHIND and leave requests unsent; raise --connections "
                  "to %llu or more",
                  s.load.connections, s.load.rate, seconds * 1e3, carried, needed, needed);
    return std::string(text);
}

namespace {

/// "movies-read-only" -> "moviesReadOnly": how /health spells a bench-server option.
std::string health_key(const std::string& option)
{
    std::string out;
    bool upper = false;
    for (char c : option) {
        if (c == '-') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return out;
}

/// Whether /health's `actual` is the setting the scenario `wanted`: bench-server reports a setting in one spelling
/// and accepts others ("off" is --movies-cache's 0; 200 and 200.0 are one number).
bool same_setting(const std::string& wanted, const std::string& actual)
{
    if (wanted == actual)
        return true;
    auto number = [](std::string_view v) -> std::optional<double> {
        if (v == "off")
            v = "0";
        double d = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
        return ec == std::errc{} && end == v.data() + v.size() ? std::optional<double>(d) : std::nullopt;
    };
    auto w = number(wanted);
    auto a = number(actual);
    return w && a && *w == *a;
}

}  // namespace

std::vector<std::string> server_mismatches(const scenario& s, const target& t, const observed_server& server)
{
    std::vector<std::string> out;
    auto health = server.health_fields();
    if (health.empty())
        return out;
    const auto where = "the server at " + t.host_header + " (/health: model " + server.model + ")";
    if (auto down = health.find("downstream");
        s.server.downstream == "separate" && max_call_depth(s) > 0 && down != health.end()) {
        auto d = http::parse_url(down->second);
        if (d && d->port == t.port && http::is_loopback_literal(d->host))
            out.push_back("scenario " + s.name + " wants a separate downstream server (server.downstream = " +
                          "separate), but " + where + " calls itself (downstream " + down->second +
                          "); start it with --downstream URL");
    }
    for (const auto& [option, wanted] : s.server.options) {
        auto key = health_key(option);
        auto found = health.find(key);
        if (found == health.end())
            continue;
        const auto& actual = found->second;
        if (!same_setting(wanted, actual))
            out.push_back("scenario " + s.name + " wants server.options." + option + " = " + wanted + ", but " + where +
                          " has " + key + " = " + actual + "; start it with --" + option +
                          (wanted == "true" ? "" : " " + wanted));
    }
    return out;
}

std::string idle_timeout_warning(const scenario& s, const observed_server& server)
{
    auto health = nlohmann::json::parse(server.health_json, nullptr, false);
    if (!health.is_object() || !health.contains("idleTimeoutMs") || !health["idleTimeoutMs"].is_number())
        return {};
    const double timeout = health["idleTimeoutMs"].get<double>() / 1e3;
    const auto& l = s.load;
    double idle = 0;
    std::string why;
    if (l.kind == shape::open && l.rate > 0) {
        idle = l.connections / l.rate;
        why = "each of its " + grouped(l.connections) + " connections sends about every " + fixed(idle, 1) +
              " s (connections / rate)";
    } else if (l.kind == shape::closed || l.kind == shape::ramp) {
        idle = std::chrono::duration<double>(l.think_max).count();
        why = "its users pause up to " + fixed(idle, 1) + " s between requests (think time)";
    }
    if (timeout <= 0 || idle < timeout)
        return {};
    return "scenario " + s.name + ": " + why + ", at least the server's keep-alive idle timeout (" + fixed(timeout, 1) +
           " s, /health idleTimeoutMs): it will close idle connections mid-run, and the requests after that pay a " +
           "reconnect or fail against the close; use fewer connections or start the server with a longer " +
           "--idle-timeout";
}

std::string port_range_check(const scenario& s, const target& t)
{
    auto ports = local_port_count();
    auto kernel = read_kernel_counters();
    if (!ports || !kernel || t.endpoints.empty())
        return {};
    auto sources = loopback_source(t.endpoints.front(), 0) ? loopback_source_addresses : 1u;
    auto warning = port_range_warning(connections_needed(s), *ports, kernel->time_wait, sources);
    return warning.empty() ? warning : "scenario " + s.name + ": " + warning;
}

}  // namespace execbench::load
