#include "execbench/endpoints/app.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/text.hpp"
#include "execbench/endpoints/movies.hpp"
#include "execbench/endpoints/params.hpp"
#include "execbench/stats/process.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>

namespace execbench::endpoints {

namespace {

// Ceilings on what a request may ask for, so no single request can amplify into unbounded work.
constexpr std::int64_t max_call_depth = 10;
constexpr std::int64_t max_delay_millis = 60'000;
constexpr std::int64_t default_iterations = 20'000;
constexpr std::int64_t max_iterations = 1'000'000;
constexpr std::int64_t max_cpu_micros = 1'000'000;
constexpr std::int64_t max_stream_events = 1'000'000;
constexpr std::int64_t max_event_bytes = 65'536;

/// The handshakes /health reports under --tls: {"full": n, "resumed": n, "failed": {"plain_http": n, ...}}.
nlohmann::json tls_handshakes(const tls_counters& tls)
{
    auto failed = nlohmann::json::object();
    for (std::size_t i = 0; i < handshake_failure_count; ++i) {
        const auto why = static_cast<handshake_failure>(i);
        failed[std::string(to_string(why))] = tls.failed(why);
    }
    return {{"full", tls.full()}, {"resumed", tls.resumed()}, {"failed", failed}};
}

struct route_entry {
    std::string_view path;
    endpoint route;
    work what;
    int default_delay_millis;
    std::string_view allow;
};

constexpr route_entry routes[] = {
    {"/io", endpoint::io, work::respond, 300, "GET, HEAD"},
    {"/cpu", endpoint::cpu, work::compute, 0, "GET, HEAD"},
    {"/cpu-offloaded", endpoint::cpu_offloaded, work::compute_offloaded, 0, "GET, HEAD"},
    {"/stream", endpoint::stream, work::stream, 0, "GET, HEAD"},
    {"/epoch-millis", endpoint::epoch_millis, work::respond, 100, "GET, HEAD"},
    {"/movies", endpoint::movies, work::respond, 100, "GET, HEAD, POST"},
    {"/health", endpoint::health, work::respond, 0, "GET, HEAD"},
    {"/metrics", endpoint::metrics, work::respond, 0, "GET, HEAD"},
};

bool is_json_content_type(std::string_view type) noexcept
{
    auto semicolon = type.find(';');
    auto media = type.substr(0, semicolon);
    while (!media.empty() && (media.back() == ' ' || media.back() == '\t'))
        media.remove_suffix(1);
    constexpr std::string_view json = "application/json";
    if (media.size() != json.size())
        return false;
    for (std::size_t i = 0; i < json.size(); ++i)
        if (static_cast<char>(std::tolower(static_cast<unsigned char>(media[i]))) != json[i])
            return false;
    return true;
}

bool fail_with(http::failure f, std::string_view message, http::response& out)
{
    http::make_error(f, message, out);
    return false;
}

/// `/cpu` and `/cpu-offloaded`: a fixed chain of `iterations`, or `cpuMicros` of the thread's CPU time.
bool plan_cpu(const query_params& params, plan& p, http::response& out)
{
    if (params.occurrences("cpuMicros") > 0) {
        if (params.occurrences("iterations") > 0)
            return fail_with(http::failure::bad_parameter,
                             "give iterations (a fixed chain) or cpuMicros (a CPU time), not both", out);
        auto micros = int_param(params, "cpuMicros", 0, 1, max_cpu_micros);
        if (!micros)
            return fail_with(http::failure::bad_parameter, micros.err().message, out);
        p.cpu_micros = static_cast<std::uint32_t>(*micros);
        return true;
    }
    auto n = int_param(params, "iterations", default_iterations, 1, max_iterations);
    if (!n)
        return fail_with(http::failure::bad_parameter, n.err().message, out);
    p.iterations = static_cast<std::uint32_t>(*n);
    return true;
}

/// `/stream`: how many events, how far apart and how large.
bool plan_stream(const query_params& params, plan& p, http::response& out)
{
    auto count = int_param(params, "count", 50, 1, max_stream_events);
    if (!count)
        return fail_with(http::failure::bad_parameter, count.err().message, out);
    auto interval = int_param(params, "intervalMillis", 0, 0, max_delay_millis);
    if (!interval)
        return fail_with(http::failure::bad_parameter, interval.err().message, out);
    auto bytes = int_param(params, "eventBytes", 0, 0, max_event_bytes);
    if (!bytes)
        return fail_with(http::failure::bad_parameter, bytes.err().message, out);
    p.stream = {static_cast<std::uint32_t>(*count), static_cast<std::uint32_t>(*interval),
                static_cast<std::uint32_t>(*bytes)};
    return true;
}

/// `/movies`: a JSON batch to add (POST), or the director to look up (GET).
bool plan_movies(const http::request& req, const query_params& params, plan& p, http::response& out)
{
    if (p.post) {
        if (!is_json_content_type(req.content_type))
            return fail_with(http::failure::unsupported_media_type,
                             "POST /movies needs Content-Type: application/json", out);
        auto batch = parse_movies(req.body);
        if (!batch)
            return fail_with(http::failure::bad_body, batch.err().message, out);
        p.movies = std::move(*batch);
        return true;
    }
    auto director = string_param(params, "directorLastName");
    if (!director)
        return fail_with(http::failure::bad_parameter, director.err().message, out);
    p.director.assign(*director);
    return true;
}

}  // namespace

app::app(server_info info, movie_store& movies, request_counters& counters)
    : info_(std::move(info)), movies_(&movies), counters_(counters)
{
}

app::app(server_info info, request_counters& counters) : info_(std::move(info)), movies_(nullptr), counters_(counters)
{
}

bool app::plan(const http::request& req, struct plan& p, http::response& out)
{
    p.route = endpoint::other;
    p.what = work::respond;
    p.call_depth = 0;
    p.delay_millis = 0;
    p.iterations = 0;
    p.cpu_micros = 0;
    p.stream = {};
    p.post = false;
    p.director.clear();
    p.movies = nullptr;

    const route_entry* entry = nullptr;
    for (const auto& r : routes)
        if (r.path == req.path)
            entry = &r;
    if (entry == nullptr)
        return fail_with(http::failure::not_found,
                         "no such path; try /io, /cpu, /cpu-offloaded, /stream, "
                         "/epoch-millis, /movies, /health or /metrics",
                         out);
    p.route = entry->route;
    p.what = entry->what;

    // HEAD is GET without the body (RFC 9110 section 9.3.2): planned and served as GET, the body dropped as it leaves.
    const bool reads = req.method == http::verb::get || req.method == http::verb::head;
    const bool post_allowed = entry->route == endpoint::movies;
    if (!reads && !(post_allowed && req.method == http::verb::post)) {
        http::make_error(http::failure::method_not_allowed,
                         std::string(req.method_name) + " is not allowed on " + std::string(req.path), out);
        out.allow = entry->allow;
        return false;
    }
    p.post = req.method == http::verb::post;

    auto params = query_params::parse(req.query);
    if (!params)
        return fail_with(http::failure::bad_parameter, params.err().message, out);

    if (entry->route == endpoint::health || entry->route == endpoint::metrics)
        return true;

    auto depth = int_param(*params, "delayCallDepth", 0, 0, max_call_depth);
    if (!depth)
        return fail_with(http::failure::bad_parameter, depth.err().message, out);
    auto delay = int_param(*params, "delayInMillis", entry->default_delay_millis, 0, max_delay_millis);
    if (!delay)
        return fail_with(http::failure::bad_parameter, delay.err().message, out);
    p.call_depth = static_cast<int>(*depth);
    p.delay_millis = static_cast<int>(*delay);

    switch (entry->route) {
    case endpoint::cpu:
    case endpoint::cpu_offloaded: return plan_cpu(*params, p, out);
    case endpoint::stream:
        if (!plan_stream(*params, p, out))
            return false;
        // A stream's head is all HEAD asks for: no events are produced, so none wait out their interval.
        if (req.method == http::verb::head)
            p.what = work::respond;
        return true;
    case endpoint::movies:
        if (movies_ == nullptr)
            p.what = work::database;
        return plan_movies(req, *params, p, out);
    default: return true;
    }
}

void app::downstream_target(const struct plan& p, std::string& out) const
{
    out.assign("/epoch-millis?delayCallDepth=");
    append_number(p.call_depth - 1, out);
    out.append("&delayInMillis=");
    append_number(p.delay_millis, out);
}

void app::respond(const struct plan& p, http::response& out)
{
    out.clear();
    switch (p.route) {
    case endpoint::io:
        out.body.append("{\"waitedMillis\":");
        append_number(p.delay_millis, out.body);
        out.body.push_back('}');
        break;
    case endpoint::epoch_millis:
        append_number(
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count(),
            out.body);
        break;
    case endpoint::movies:
        if (p.post) {
            auto stored = movies_->add(p.movies);
            if (!stored) {
                http::make_error(http::failure::internal, stored.err().message, out);
                return;
            }
            out.code = http::status::created;
            out.body = std::move(*stored);
        } else {
            auto found = movies_->by_director(p.director);
            if (!found) {
                http::make_error(http::failure::internal, found.err().message, out);
                return;
            }
            out.body.assign(**found);
        }
        break;
    case endpoint::health: {
        nlohmann::json health{
            {"status", "up"},
            {"model", info_.model},
            {"threads", info_.threads},
            {"cpuThreads", info_.cpu_threads},
            {"queue", info_.queue},
            {"fiberStackKb", info_.fiber_stack_kb},
            {"downstream", info_.downstream},
            {"address", info_.address},
            {"moviesDb", info_.movies_db.empty() ? nlohmann::json(nullptr) : nlohmann::json(info_.movies_db)},
            {"moviesReadOnly", info_.movies_read_only},
            {"moviesSyncCommits", info_.movies_sync_commits},
            {"moviesCache", info_.movies_cache},
            {"dbPool", info_.db_pool},
            {"dbTimeoutMs", info_.db_timeout_ms},
            {"headerTimeoutMs", info_.header_timeout_ms},
            {"idleTimeoutMs", info_.idle_timeout_ms},
            {"writeTimeoutMs", info_.write_timeout_ms},
            {"downstreamTimeoutMs", info_.downstream_timeout_ms},
            {"downstreamClient", info_.downstream_client},
            {"downstreamConnections", info_.downstream_connections},
            {"downstreamQueue", info_.downstream_queue},
            {"shutdownTimeoutMs", info_.shutdown_timeout_ms},
            {"listenBacklog", info_.listen_backlog},
            {"cpus", info_.cpus},
            {"tls", info_.tls},
            {"tlsKey", info_.tls ? nlohmann::json(info_.tls_key) : nlohmann::json(nullptr)},
            {"tlsCertificate",
             !info_.tls ? nlohmann::json(nullptr) : nlohmann::json(info_.tls_key_from_file ? "file" : "generated")},
            {"tlsHandshakes", !info_.tls ? nlohmann::json(nullptr) : tls_handshakes(counters_.tls())},
            {"http2", info_.http2},
            {"h2MaxStreams", info_.http2 ? nlohmann::json(info_.h2_max_streams) : nlohmann::json(nullptr)},
            {"inFlight", counters_.in_flight()},
            {"version", std::string(execbench::version())},
            {"gitRevision", std::string(execbench::git_revision())},
            {"sourceDigest", std::string(execbench::source_digest())},
            {"implementation", std::string(execbench::model_implementation(info_.model))},
        };
        out.body = health.dump();
        break;
    }
    case endpoint::stream:  // HEAD /stream: the head the events would follow
        out.content_type = "text/event-stream";
        out.streamed = true;
        break;
    case endpoint::metrics: {
        out.content_type = "text/plain; version=0.0.4; charset=utf-8";
        auto process = stats::sample_process();
        counters_.render(process ? *process : stats::process_sample{}, out.body);
        break;
    }
    default: http::make_error(http::failure::internal, "endpoint has no plain response", out); break;
    }
}

void app::respond(const struct plan& p, const computation& c, http::response& out) const
{
    out.clear();
    out.body.append("{\"iterations\":");
    append_number(c.iterations, out.body);
    if (p.cpu_micros > 0) {
        out.body.append(",\"cpuMicros\":");
        append_number(p.cpu_micros, out.body);
    }
    out.body.append(",\"sha256\":\"");
    append_hex(c.sha256, out.body);
    out.body.append("\"}");
}

void app::respond(const struct plan& p, const database_answer& answer, http::response& out) const
{
    if (answer.failed) {
        http::make_error(*answer.failed, "movies database: " + answer.detail, out);
        return;
    }
    out.clear();
    if (p.post)
        out.code = http::status::created;
    out.body.assign(*answer.body);
}

void app::respond_downstream_failure(http::failure f, std::string_view detail, http::response& out) const
{
    std::string message = "downstream call to " + info_.downstream + " failed: ";
    message.append(detail);
    http::make_error(f, message, out);
}

computation app::compute(const struct plan& p) const
{
    if (p.cpu_micros > 0)
        return sha256_chain_for(std::chrono::microseconds(p.cpu_micros));
    return {sha256_chain(p.iterations), p.iterations};
}

void app::stream_event(const struct plan& p, std::uint32_t index, http::framing f, std::string& out)
{
    using http::event_stream;
    if (index == 0)
        event_stream::append_head(f, out);
    event_stream::begin_chunk(f, sse_event_size(index, p.stream.event_bytes), out);
    append_sse_event(index, p.stream.event_bytes, out);
    event_stream::end_chunk(f, out);
    if (index + 1 == p.stream.count)
        event_stream::append_last_chunk(f, out);
    counters_.event_produced();
}

std::vector<route_summary> route_summaries()
{
    std::vector<route_summary> out;
    for (const auto& r : routes)
        out.push_back({r.path, r.allow, r.default_delay_millis});
    return out;
}

}  // namespace execbench::endpoints
