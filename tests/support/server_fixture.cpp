#include "support/server_fixture.hpp"

#include "support/raw_client.hpp"

#include <stdexcept>
#include <thread>

namespace execbench::test_support {

namespace {

// Readiness is announced by /health answering, as for bench-server; a server that does not answer within this
// fails the test that started it.
constexpr std::chrono::seconds ready_timeout{10};
// In-flight requests get this long when a test server stops.
constexpr std::chrono::seconds stop_timeout{5};

}  // namespace

server::options test_server::options_for(models::model model, const server_settings& settings)
{
    server::options opts;
    opts.model = model;
    opts.host = "127.0.0.1";
    opts.port = 0;
    const bool waits_hold_threads = model_rows[static_cast<std::size_t>(model)].wait_holds_thread;
    opts.threads = settings.threads != 0 ? settings.threads : waits_hold_threads ? 8u : 2u;
    opts.cpu_threads = settings.cpu_threads;
    opts.queue = settings.queue;
    opts.movies_db = settings.movies_db;
    opts.movies_read_only = settings.movies_read_only;
    opts.movies_cache = settings.movies_cache;
    opts.db_pool = settings.db_pool;
    opts.db_timeout = settings.db_timeout;
    opts.http2 = settings.http2;
    return opts;
}

test_server::test_server(models::model model, const server_settings& settings) : instance_(options_for(model, settings))
{
    instance_.start();
    auto deadline = std::chrono::steady_clock::now() + ready_timeout;
    for (;;) {
        bool answered = false;
        try {
            raw_client client(port());
            answered = client.get("/health", {}, std::chrono::seconds(2)).status == 200;
        } catch (const std::runtime_error&) {
            // not ready yet
        }
        if (answered && wait_until_idle(deadline))
            return;
        if (std::chrono::steady_clock::now() >= deadline) {
            stop(std::chrono::seconds(0));
            throw std::runtime_error("test server (" + model_name(model) + ") did not answer /health in time");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

bool test_server::wait_until_idle(std::chrono::steady_clock::time_point deadline)
{
    // The readiness request is counted as finished just after its answer was written, and its connection
    // closes a moment later (in pool it even takes a queue slot to notice): tests start from a quiet server.
    while (counters().in_flight() != 0 || counters().connections() != 0) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

test_server::~test_server()
{
    stop(stop_timeout);
}

bool test_server::stop(std::chrono::milliseconds timeout)
{
    if (stopped_)
        return true;
    stopped_ = true;
    return instance_.stop(std::chrono::steady_clock::now() + timeout);
}

std::string model_name(models::model model)
{
    return std::string(models::to_string(model));
}

}  // namespace execbench::test_support
