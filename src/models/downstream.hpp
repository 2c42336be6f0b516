#pragma once

#include "execbench/endpoints/downstream_counters.hpp"
#include "execbench/http/client.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"
#include "execbench/models/server.hpp"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <memory>
#include <string_view>

namespace execbench::models {

/// The client behind stage-1 downstream calls: one interface for the three clients of `--downstream-client`
/// (downstream_beast.hpp: pooled and per-call; downstream_curl.hpp: libcurl), chosen once at start, so no model's
/// call site knows which one it calls.
///
/// `async_get` takes any Asio completion token, as `offload_pool::async_run` does: `yield` in `fiber`, a callback in
/// `loop`, `use_values` in `coro`. `get` blocks its caller, the `pool`'s way (as the JDK's `HttpClient.send`). Both
/// complete with the outcome, failures already judged (502, 503 or 504 with a detail). Thread-safe: calls may start
/// on any thread; their I/O runs on the client's `io_context`.
class downstream_client {
public:
    /// The completion handler a client receives, whatever token the caller gave.
    using handler_type = boost::asio::any_completion_handler<void(http::call_outcome)>;

    virtual ~downstream_client() = default;

    /// Sends GET `target` and completes with the outcome: `void(http::call_outcome)`.
    template <class CompletionToken>
    auto async_get(std::string_view target, CompletionToken&& token)
    {
        return boost::asio::async_initiate<CompletionToken, void(http::call_outcome)>(
            [this](handler_type handler, std::string_view t) { start_get(t, std::move(handler)); }, token, target);
    }

    /// Sends GET `target` and blocks the calling thread until the outcome. By default it waits for `async_get`; a
    /// client with a blocking way of its own (curl's easy handle) uses that. Never call it on the client's io_context.
    virtual http::call_outcome get(std::string_view target);

    /// Fails the calls in progress and every later call with `operation_aborted`: how a shutdown deadline ends calls
    /// that would otherwise block until the downstream timeout.
    virtual void cancel() = 0;

protected:
    /// Starts GET `target` (copied before this returns); `handler` receives the outcome.
    virtual void start_get(std::string_view target, handler_type handler) = 0;
};

/// Everything a downstream client is made from.
struct downstream_setup {
    boost::asio::io_context::executor_type executor;       ///< where its I/O runs
    bool shared;  ///< several threads run `executor`'s io_context (fiber's carriers): the calls need a strand
    const http::url& server;                                ///< the downstream, as given
    boost::asio::ip::tcp::resolver::results_type endpoints;  ///< `server` resolved once at start
    const http::timeouts& timeouts;                          ///< connect and answer deadlines
    downstream_options options;                              ///< which client, its cap and queue
    endpoints::downstream_counters& counters;                ///< what it did, for /metrics
};

/// Builds the client `setup.options.client` names (the selector behind `--downstream-client`).
std::unique_ptr<downstream_client> make_downstream_client(const downstream_setup& setup);

}  // namespace execbench::models
