#pragma once

#include "execbench/core/model_names.hpp"

#include "execbench/endpoints/app.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"
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
