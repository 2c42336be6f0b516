#pragma once

#include "execbench/endpoints/movie_store.hpp"
#include "execbench/endpoints/request_counters.hpp"
#include "execbench/endpoints/sha256_chain.hpp"
#include "execbench/endpoints/sse.hpp"
#include "execbench/http/failure.hpp"
#include "execbench/http/request.hpp"
#include "execbench/http/response.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::endpoints {

/// What a model must do between planning a request and writing its response.
enum class work : std::uint8_t {
    respond,            ///< nothing more: build the response
    compute,            ///< run the SHA-256 chain on the thread that handles the request
    compute_offloaded,  ///< run the SHA-256 chain on the compute pool and wait for it
    stream,             ///< send `plan::stream.count` Server-Sent Events, demand-driven
    database,           ///< read or write movies in the database server, waiting for it in the model's way
};

/// How a `work::database` stage ended: the JSON answer, or the failure and a detail for the error body.
struct database_answer {
    std::optional<http::failure> failed;  ///< database_unavailable (503), database_timeout (504), internal
    std::string detail;
    std::shared_ptr<const std::string> body;  ///< the JSON array, when not failed
};

/// A request turned into the three stages every endpoint runs: downstream call or delay, then the work.
///
/// Filled by `app::plan`; owned by the connection and reused, so strings keep their capacity.
struct plan {
    endpoint route = endpoint::other;
    work what = work::respond;
    int call_depth = 0;            ///< > 0: call downstream with depth - 1 instead of waiting
    int delay_millis = 0;          ///< the wait (here, or at the innermost downstream call)
    std::uint32_t iterations = 0;  ///< SHA-256 chain length for the cpu endpoints
    std::uint32_t cpu_micros = 0;  ///< > 0: run the chain for this much thread CPU time instead (`cpuMicros`)
    stream_params stream;          ///< for `work::stream`
    bool post = false;             ///< POST /movies rather than GET
    std::string director;          ///< GET /movies?directorLastName=
    nlohmann::json movies;         ///< POST /movies, validated

    /// True when stage 1 is a downstream call rather than a local wait.
    [[nodiscard]] bool calls_downstream() const noexcept { return call_depth > 0; }
};

/// What /health reports about the running server.
struct server_info {
    std::string model;
    unsigned threads = 0;
    unsigned cpu_threads = 0;
    std::size_t queue = 0;
    unsigned fiber_stack_kb = 0;
    std::string downstream;
    std::string address;
    std::string movies_db;
    bool movies_read_only = false;
    bool movies_sync_commits = false;  ///< SQLite file: synchronous=FULL
    std::size_t movies_cache = 0;    ///< directors cached; 0: every GET reaches the store
    unsigned db_pool = 0;            ///< PostgreSQL connections; 0 with SQLite
    std::int64_t db_timeout_ms = 0;  ///< PostgreSQL per-request deadline; 0 with SQLite
    // The effective settings a parity audit compares between arms.
    std::int64_t header_timeout_ms = 0;
    std::int64_t idle_timeout_ms = 0;
    std::int64_t write_timeout_ms = 0;
    std::int64_t downstream_timeout_ms = 0;
    std::string downstream_client;          ///< "pooled", "per-call" or "curl"
    std::uint64_t downstream_connections = 0;  ///< the cap per client; 0: none
    std::uint64_t downstream_queue = 0;        ///< calls that may wait for a connection, per client
    std::int64_t shutdown_timeout_ms = 0;
    std::uint64_t listen_backlog = 0;  ///< after the kernel's somaxconn cap
    std::string cpus;                  ///< the CPUs the server may run on, as taskset lists them
    bool tls = false;                  ///< serving HTTPS (`--tls`)
    std::string tls_key;               ///< with TLS: the key, e.g. "p256", "rsa2048" (tls::server_context)
    bool tls_key_from_file = false;    ///< with TLS: the certificate came from --tls-cert, not made at start
    bool http2 = true;                 ///< HTTP/2 served (ALPN h2 over TLS, the h2c preface in cleartext)
    std::uint32_t h2_max_streams = 0;  ///< SETTINGS_MAX_CONCURRENT_STREAMS (`--h2-max-streams`)
};

/// The endpoint logic, written once and shared by every model. Pure: no sockets, threads or waits.
///
/// A model calls `plan`, then performs the stages the plan names (downstream call or delay, compute or stream),
/// then calls `respond` or the stream functions to build what it writes. Thread-safe.
class app {
public:
    app(server_info info, movie_store& movies, request_counters& counters);
    /// An app whose movies live in a database server: their plans carry `work::database`, which the model performs.
    app(server_info info, request_counters& counters);

    /// Routes and validates `req`. Returns false with `out` holding the error response (400/404/405/415).
    bool plan(const http::request& req, struct plan& p, http::response& out);

    /// The target of the stage-1 downstream call: `/epoch-millis?delayCallDepth=d-1&delayInMillis=X`.
    void downstream_target(const struct plan& p, std::string& out) const;

    /// Builds the response for a completed `work::respond` plan.
    void respond(const struct plan& p, http::response& out);
    /// The computation of a compute plan (the SHA-256 chain), run wherever the model chooses.
    [[nodiscard]] computation compute(const struct plan& p) const;
    /// Builds the response for a completed compute plan from what it computed.
    void respond(const struct plan& p, const computation& c, http::response& out) const;
    /// Builds the response for a completed `work::database` plan (201 for a POST).
    void respond(const struct plan& p, const database_answer& answer, http::response& out) const;
    /// Builds the error response for a failed downstream call.
    void respond_downstream_failure(http::failure f, std::string_view detail, http::response& out) const;

    /// Appends event `index` of a stream as `http::event_stream` frames it (the head before the first event, the
    /// last chunk after the final one), and counts it, framed for its connection (`f`).
    void stream_event(const struct plan& p, std::uint32_t index, http::framing f, std::string& out);

    /// The counters this app reports on /metrics.
    [[nodiscard]] request_counters& counters() noexcept { return counters_; }
    /// What /health says about the server.
    [[nodiscard]] const server_info& info() const noexcept { return info_; }
    /// Names the downstream server in /health and error messages; call before serving.
    void set_downstream(std::string description) { info_.downstream = std::move(description); }

private:
    server_info info_;
    movie_store* movies_;  // null: movies are a `work::database` stage
    request_counters& counters_;
};

/// One line of `bench-server --list-endpoints`.
struct route_summary {
    std::string_view path;
    std::string_view methods;  ///< "GET, HEAD" or "GET, HEAD, POST"
    int default_delay_millis;  ///< `delayInMillis` when the request gives none
};
/// Every endpoint the app serves, from its routing table.
std::vector<route_summary> route_summaries();

}  // namespace execbench::endpoints
