#pragma once

#include "execbench/core/result.hpp"
#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/movie_store.hpp"
#include "execbench/endpoints/request_counters.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/models/movie_database.hpp"
#include "execbench/models/offload_pool.hpp"
#include "execbench/models/server.hpp"
#include "execbench/tls/server_context.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::server {

/// Everything `bench-server` can be told; defaults are those the docs list.
struct options {
    models::model model = models::model::loop;
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;
    unsigned threads = 0;      ///< 0: the model's default
    unsigned cpu_threads = 0;  ///< 0: one per CPU this process may run on
    std::size_t queue = 10000;
    int backlog = models::listen_backlog;  ///< listen backlog; the kernel caps it at net.core.somaxconn
    unsigned fiber_stack_kb = 128;
    std::string downstream;  ///< empty: the server itself
    models::downstream_options downstream_client;  ///< --downstream-client, --downstream-connections, --downstream-queue
    std::string movies_db;   ///< a SQLite file, or postgresql://USER@HOST:PORT/DB; empty: SQLite in memory
    bool movies_read_only = false;
    bool movies_sync_commits = false;  ///< SQLite file: every commit waits for the disk
    std::size_t movies_cache = endpoints::default_movies_cache;  ///< directors cached; 0: off
    unsigned db_pool = 10;                                       ///< PostgreSQL connections
    std::chrono::milliseconds db_timeout{5'000};  ///< PostgreSQL: per request (a connection and the answer)
    std::chrono::milliseconds shutdown_timeout{10'000};
    std::string cpus;         ///< --cpus: run on these CPUs only (a list as taskset takes); empty: as started
    http::timeouts timeouts;  ///< --header-timeout, --idle-timeout, --downstream-timeout
    bool tls = false;         ///< --tls: serve HTTPS on --port
    tls::server_options tls_files;  ///< --tls-key-type, --tls-cert, --tls-key
    bool http2 = true;              ///< false with --no-http2: HTTP/1.1 only, over TLS and in cleartext
    std::uint32_t h2_max_streams = 100;  ///< --h2-max-streams: concurrent streams per HTTP/2 connection
};

/// A listening server with everything it serves from: movies, counters, compute pool, endpoint app and model.
///
/// What `run` starts, as a piece a test can start in-process. Construction builds everything and binds the port
/// (the downstream defaults to that port); `start` serves. Not copyable or movable: the model keeps references.
class instance {
public:
    /// Builds and listens; throws on start-up failures (bad address, bad --downstream, unusable database, a TLS
    /// certificate or key that cannot be used).
    explicit instance(const options& opts);
    /// Stops at once if still running (see `stop`).
    ~instance();
    instance(const instance&) = delete;
    instance& operator=(const instance&) = delete;

    /// Starts the model's threads; the server answers from now on.
    void start();
    /// Stops accepting, drains in-flight requests until `deadline`, joins every thread (model and compute pool).
    /// Returns true when every in-flight request finished in time.
    bool stop(std::chrono::steady_clock::time_point deadline);

    /// The port actually bound.
    [[nodiscard]] std::uint16_t port() const noexcept { return server_->port(); }
    /// Workers, carriers or loops after defaults.
    [[nodiscard]] unsigned threads() const noexcept { return context_.threads; }
    /// Compute pool threads after defaults.
    [[nodiscard]] unsigned cpu_threads() const noexcept { return offload_.threads(); }
    /// The downstream base URL, e.g. "http://127.0.0.1:8080".
    [[nodiscard]] const std::string& downstream() const noexcept { return app_.info().downstream; }
    /// The endpoint logic and its counters.
    [[nodiscard]] endpoints::app& app() noexcept { return app_; }

private:
    std::optional<tls::server_context> tls_;            // with --tls
    std::unique_ptr<models::movie_database> database_;  // with --movies-db postgresql://...
    std::unique_ptr<endpoints::movie_store> movies_;    // otherwise
    endpoints::request_counters counters_;
    models::offload_pool offload_;
    endpoints::app app_;
    models::server_context context_;
    std::unique_ptr<models::server> server_;
};

/// Runs a server until SIGINT or SIGTERM; prints the start line to stdout. Returns the process exit code.
/// Throws on start-up failures (bad address, unusable database), which `main` reports.
int run(const options& opts);

/// The address to listen on for `--host`: an IP address as given, "localhost" as 127.0.0.1; anything else is an
/// error naming the flag.
result<std::string> listen_address(std::string_view host);

}  // namespace execbench::server
