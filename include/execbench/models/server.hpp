#pragma once

#include "execbench/core/model_names.hpp"

#include "execbench/endpoints/app.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"
#include "execbench/http2/session_limits.hpp"
#include "execbench/tls/client_context.hpp"
#include "execbench/tls/server_context.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::models {

class offload_pool;
class movie_database;

/// The execution models a server can run under.
enum class model { pool, fiber, loop, coro };

/// "pool", "fiber", "loop" or "coro".
std::string_view to_string(model m) noexcept;
/// The model named `name`, if any.
std::optional<model> parse_model(std::string_view name) noexcept;
/// Every model, in the order reports list them.
inline constexpr model all_models[] = {model::pool, model::fiber, model::loop, model::coro};
static_assert(std::size(all_models) == model_names.size(), "one name per model, in enum order");
/// The default `--threads` for a model: its row's (`model_rows`: 200 workers for pool, as Tomcat), otherwise one per
/// CPU this process may run on (its affinity mask, so a server pinned with --cpus sizes itself to its CPUs).
unsigned default_threads(model m) noexcept;
/// The listen backlog every model asks for unless told otherwise (`--backlog`); the kernel caps it at
/// net.core.somaxconn.
inline constexpr int listen_backlog = 65535;

/// The HTTP client behind stage-1 downstream calls (`--downstream-client`).
enum class downstream_client_kind {
    pooled,    ///< keep-alive connections kept for reuse (the default)
    per_call,  ///< a new connection for every call, closed after it (`Connection: close`)
    curl,      ///< libcurl: an easy handle per blocking call (pool), a multi handle on the io_context (the others)
};

/// "pooled", "per-call" or "curl".
std::string_view to_string(downstream_client_kind k) noexcept;
/// The client named `name`, if any.
std::optional<downstream_client_kind> parse_downstream_client(std::string_view name) noexcept;
/// Every downstream client, in the order reports list them.
inline constexpr downstream_client_kind all_downstream_clients[] = {
    downstream_client_kind::pooled, downstream_client_kind::per_call, downstream_client_kind::curl};
static_assert(std::size(all_downstream_clients) == downstream_client_names.size(), "one name per client, in order");

/// Which downstream client a server uses and how many connections it may hold.
struct downstream_options {
    downstream_client_kind client = downstream_client_kind::pooled;
    /// Connections per downstream, per client (one client per io_context; the pool's one): 0 is no cap. A call over
    /// the cap waits for a connection, at most the downstream timeout (then 504).
    std::size_t connections = 0;
    /// Calls that may wait for a connection at once, per client; one more gets a 503 at once.
    std::size_t queue = 10000;
    /// How an https downstream is checked (`--downstream-tls-verify`, `--downstream-ca`): not at all by default, as
    /// bench-load does, since the downstreams under test run on loopback with self-signed certificates.
    tls::client_options tls;
};

/// Everything a model needs to serve; owned by the caller and outliving the server.
struct server_context {
    endpoints::app& app;
    offload_pool& offload;
    http::url downstream;  ///< where stage-1 calls go
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;           ///< 0 picks a free port
    unsigned threads = 1;                ///< workers (pool), carriers (fiber) or event loops (loop, coro)
    std::size_t queue = 10000;           ///< pool: requests waiting for a worker before 503
    unsigned fiber_stack_kb = 128;       ///< fiber: stack size per fiber
    http::timeouts timeouts;             ///< header, idle, write and downstream deadlines
    movie_database* database = nullptr;  ///< where `work::database` stages go (null: movies are in SQLite)
    int backlog = listen_backlog;        ///< connections the kernel queues for accept (capped at somaxconn)
    const tls::server_context* tls = nullptr;  ///< serve TLS with it (`--tls`); null: cleartext
    downstream_options downstream_client;  ///< the client stage-1 calls go through
    bool http2 = true;                     ///< serve HTTP/2 (ALPN h2, the h2c preface); false: HTTP/1.1 only
    http2::limits h2_limits;               ///< every HTTP/2 connection's settings and limits (docs/http2.md)
};

/// A running server under one model.
class server {
public:
    virtual ~server() = default;
    /// Binds and listens without serving yet; throws std::system_error when the address cannot be used.
    virtual void listen() = 0;
    /// Starts the threads that accept and serve.
    virtual void start() = 0;
    /// The port actually bound (after listen()).
    [[nodiscard]] virtual std::uint16_t port() const noexcept = 0;
    /// Stops accepting, lets in-flight requests finish until `deadline`, then closes everything and joins the
    /// threads. Returns true when every in-flight request finished in time.
    virtual bool shutdown(std::chrono::steady_clock::time_point deadline) = 0;
};

/// Builds a server of model `m` (the selector behind `--model`).
std::unique_ptr<server> make_server(model m, const server_context& context);

}  // namespace execbench::models
