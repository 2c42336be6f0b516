#pragma once

#include "execbench/core/model_names.hpp"
#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/request_counters.hpp"
#include "execbench/models/server.hpp"
#include "execbench/server/instance.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace execbench::test_support {

/// What a test server is started with; small defaults so many servers can start quickly on a small machine.
struct server_settings {
    unsigned threads = 0;  ///< 0: 8 for pool (downstream calls hold workers), 2 otherwise
    unsigned cpu_threads = 2;
    std::size_t queue = 10000;
    std::string movies_db;  ///< empty: in memory; postgresql://... for a database server
    bool movies_read_only = false;
    std::size_t movies_cache = endpoints::default_movies_cache;
    unsigned db_pool = 10;
    std::chrono::milliseconds db_timeout{5'000};
    bool http2 = true;  ///< false: HTTP/1.1 only, as `--no-http2`
};

/// An in-process server of one model on 127.0.0.1, port 0, whose downstream is itself.
///
/// Built by the same `server::instance` as bench-server. The constructor returns once `/health` answers (or
/// throws after a deadline); the destructor shuts the server down, waiting at most a few seconds for in-flight
/// requests.
class test_server {
public:
    explicit test_server(models::model model, const server_settings& settings = {});
    ~test_server();
    test_server(const test_server&) = delete;
    test_server& operator=(const test_server&) = delete;

    /// The port the server listens on.
    [[nodiscard]] std::uint16_t port() const noexcept { return instance_.port(); }
    /// The endpoint app the server runs (to read its counters or info).
    [[nodiscard]] endpoints::app& app() noexcept { return instance_.app(); }
    /// The server's request and stream counters.
    [[nodiscard]] endpoints::request_counters& counters() noexcept { return instance_.app().counters(); }
    /// Stops now (as the destructor would); true when in-flight requests finished within `timeout`.
    bool stop(std::chrono::milliseconds timeout);

    /// Waits until no request is in flight and no connection open; false when `deadline` passed first.
    bool wait_until_idle(std::chrono::steady_clock::time_point deadline);

private:
    static server::options options_for(models::model model, const server_settings& settings);

    server::instance instance_;
    bool stopped_ = false;
};

/// Model tags for TEMPLATE_TEST_CASE, so one suite runs once per model and ctest lists each run by name.
template <models::model M>
struct model_tag {
    static constexpr models::model value = M;
};
using pool_model = model_tag<models::model::pool>;
using fiber_model = model_tag<models::model::fiber>;
using loop_model = model_tag<models::model::loop>;
using coro_model = model_tag<models::model::coro>;

// The lists a per-model test runs over: a new model is one entry in each. Macros for TEMPLATE_TEST_CASE rather than
// std::tuples for TEMPLATE_LIST_TEST_CASE, because Catch2 v2 names a list's cases by index ("... - all_models - 3")
// and a failing ctest name must say which model failed ("... - coro_model").
/// Every model.
#define EXECBENCH_EVERY_MODEL pool_model, fiber_model, loop_model, coro_model
/// The models whose threads never block on a wait: every model but the thread-per-request pool.
#define EXECBENCH_EVERY_WAITING_MODEL fiber_model, loop_model, coro_model

namespace detail {
template <class... Tags>
constexpr bool lists(bool waiting_only)
{
    unsigned listed = 0;
    unsigned expected = 0;
    ((listed |= 1u << static_cast<unsigned>(Tags::value)), ...);
    std::size_t count = 0;
    for (std::size_t i = 0; i < model_rows.size(); ++i)
        if (!waiting_only || !model_rows[i].wait_holds_thread) {
            expected |= 1u << i;
            ++count;
        }
    return listed == expected && sizeof...(Tags) == count;
}
template <class... Tags>
constexpr bool lists_every_model = lists<Tags...>(false);
template <class... Tags>
constexpr bool lists_every_waiting_model = lists<Tags...>(true);
}  // namespace detail
// The lists against the models' rows (core/model_names.hpp): a model added there and not here fails the build.
static_assert(detail::lists_every_model<EXECBENCH_EVERY_MODEL>, "EXECBENCH_EVERY_MODEL must name every model");
static_assert(detail::lists_every_waiting_model<EXECBENCH_EVERY_WAITING_MODEL>,
              "EXECBENCH_EVERY_WAITING_MODEL must name every model whose waits do not hold a thread");

/// The model's name for test output, e.g. "fiber".
std::string model_name(models::model model);

}  // namespace execbench::test_support
