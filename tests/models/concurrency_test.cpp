// How each model waits: fibers and loops overlap many waits on one thread; a pool waits one request per worker.
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using clock_type = std::chrono::steady_clock;

struct burst_result {
    std::chrono::milliseconds wall{0};     ///< from the common start until the last answer
    std::chrono::milliseconds fastest{0};  ///< the quickest single answer
    int ok = 0;                            ///< answers with status 200
    std::vector<std::string> errors;       ///< what went wrong for the others
};

// Sends `count` GETs of `target` at the same moment, one connection each, and waits for every answer.
burst_result burst(std::uint16_t port, int count, const std::string& target)
{
    std::vector<std::unique_ptr<raw_client>> clients;
    for (int i = 0; i < count; ++i)
        clients.push_back(std::make_unique<raw_client>(port));

    std::latch ready(count + 1);
    std::atomic<int> ok{0};
    std::vector<clock_type::time_point> finished(static_cast<std::size_t>(count));
    std::vector<std::string> errors(static_cast<std::size_t>(count));
    std::vector<std::thread> threads;
    clock_type::time_point start;
    for (int i = 0; i < count; ++i) {
        threads.emplace_back([&, i] {
            auto index = static_cast<std::size_t>(i);
            ready.arrive_and_wait();
            try {
                auto r = clients[index]->get(target, {}, std::chrono::seconds(20));
                if (r.status == 200)
                    ++ok;
                else
                    errors[index] = "status " + std::to_string(r.status);
            } catch (const std::exception& e) {
                errors[index] = e.what();
            }
            finished[index] = clock_type::now();
        });
    }
    start = clock_type::now();
    ready.arrive_and_wait();
    for (auto& t : threads)
        t.join();

    burst_result result;
    result.ok = ok;
    auto last = start;
    auto first = clock_type::time_point::max();
    for (std::size_t i = 0; i < finished.size(); ++i) {
        last = std::max(last, finished[i]);
        first = std::min(first, finished[i]);
        if (!errors[i].empty())
            result.errors.push_back(errors[i]);
    }
    result.wall = std::chrono::duration_cast<std::chrono::milliseconds>(last - start);
    result.fastest = std::chrono::duration_cast<std::chrono::milliseconds>(first - start);
    return result;
}

}  // namespace

TEMPLATE_TEST_CASE("one fiber carrier or event loop overlaps 100 waits", "[concurrency]", EXECBENCH_EVERY_WAITING_MODEL)
{
    server_settings settings;
    settings.threads = 1;
    test_server server(TestType::value, settings);

    auto result = burst(server.port(), 100, "/io?delayInMillis=500");
    INFO("wall " << result.wall.count()
                 << " ms; first error: " << (result.errors.empty() ? std::string("none") : result.errors.front()));
    CHECK(result.ok == 100);
    CHECK(result.fastest.count() >= 490);
    // Served one at a time this would take 50 s; together it is one delay plus overhead.
    CHECK(result.wall.count() < 5000);
}

TEST_CASE("a pool of 4 workers serves 8 waiting requests in two rounds", "[concurrency]")
{
    server_settings settings;
    settings.threads = 4;
    test_server server(models::model::pool, settings);

    auto result = burst(server.port(), 8, "/io?delayInMillis=500");
    INFO("wall " << result.wall.count() << " ms");
    CHECK(result.ok == 8);
    // A worker holds its request through the delay: 8 requests on 4 workers need two rounds.
    CHECK(result.wall.count() >= 950);
    CHECK(result.wall.count() < 5000);
}

TEST_CASE("a pool with every worker busy and a full queue answers 503 with Retry-After", "[concurrency]")
{
    server_settings settings;
    settings.threads = 1;
    settings.queue = 1;
    test_server server(models::model::pool, settings);

    raw_client busy(server.port());
    raw_client queued(server.port());
    raw_client rejected(server.port());
    busy.send_get("/io?delayInMillis=1000");
    // The only worker has taken the first request once it is in flight.
    auto deadline = clock_type::now() + std::chrono::seconds(5);
    while (server.counters().in_flight() == 0 && clock_type::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(server.counters().in_flight() == 1);
    queued.send_get("/io?delayInMillis=0");
    // Give the poller time to see the second request and queue it.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    rejected.send_get("/io?delayInMillis=0");

    auto r = rejected.read_response(std::chrono::seconds(5));
    CHECK(r.status == 503);
    CHECK(r.header("Retry-After") == "1");
    CHECK(rejected.wait_for_close());
    CHECK(busy.read_response().status == 200);
    CHECK(queued.read_response().status == 200);
}

TEST_CASE("a pool's idle keep-alive connections hold no worker", "[concurrency]")
{
    server_settings settings;
    settings.threads = 2;
    test_server server(models::model::pool, settings);

    // Ten connections, each used once and then left open: with a worker per connection they would starve a
    // newcomer; as in Tomcat's NIO connector they wait in the poller instead.
    std::vector<std::unique_ptr<raw_client>> idle;
    for (int i = 0; i < 10; ++i) {
        idle.push_back(std::make_unique<raw_client>(server.port()));
        REQUIRE(idle.back()->get("/io?delayInMillis=0").status == 200);
    }
    raw_client newcomer(server.port());
    auto start = clock_type::now();
    CHECK(newcomer.get("/io?delayInMillis=0", {}, std::chrono::seconds(5)).status == 200);
    CHECK(clock_type::now() - start < std::chrono::seconds(2));
    // And the idle ones are still served when they come back.
    CHECK(idle.front()->get("/io?delayInMillis=0").status == 200);
}

TEST_CASE("a fiber carrier that computes does not hold up the fibers waiting on it", "[concurrency]")
{
    server_settings settings;
    settings.threads = 2;
    test_server server(models::model::fiber, settings);

    // Connections are spread over both carriers, so some of the quick ones wait on the carrier that computes.
    std::vector<std::unique_ptr<raw_client>> clients;
    for (int i = 0; i < 6; ++i)
        clients.push_back(std::make_unique<raw_client>(server.port()));
    clients.front()->send_get("/cpu?iterations=1000000");  // about 0.15 s of SHA-256 on one carrier
    auto deadline = clock_type::now() + std::chrono::seconds(5);
    while (server.counters().in_flight() == 0 && clock_type::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(server.counters().in_flight() == 1);

    // A fiber that becomes ready runs on whichever carrier is free (as a virtual thread does on its ForkJoinPool),
    // so every quick request is answered while the computation still runs. Were fibers tied to the carrier they
    // started on, the ones sharing it would be answered only after the computation had finished and been counted,
    // as connections on a busy event loop are.
    for (std::size_t i = 1; i < clients.size(); ++i) {
        INFO("connection " << i);
        CHECK(clients[i]->get("/epoch-millis?delayInMillis=0").status == 200);
        CHECK(server.counters().requests(endpoints::endpoint::cpu, http::status::ok) == 0);
    }
    CHECK(clients.front()->read_response(std::chrono::seconds(30)).status == 200);
}
