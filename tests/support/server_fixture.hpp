#pragma once

#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/metrics.hpp"
#include "execbench/models/server.hpp"
#include "execbench/server/instance.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

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
    [[nodiscard]] endpoints::metrics& counters() noexcept { return instance_.app().counters(); }
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
using all_model_tags = std::tuple<pool_model, fiber_model, loop_model>;

/// The model's name for test output, e.g. "fiber".
std::string model_name(models::model model);

}  // namespace execbench::test_support
