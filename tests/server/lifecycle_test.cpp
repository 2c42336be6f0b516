// Lifecycle and data, on the real bench-server binary: SIGTERM drains, a second signal exits at once, acknowledged
// movies survive kill -9, and downstream failures become 502/504 on time while the server stays healthy.
#include "support/child_process.hpp"
#include "support/misbehaving_server.hpp"
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::string post(const std::string& body)
{
    return "POST /movies?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string movie(const std::string& title, const std::string& director)
{
    return nlohmann::json{{"title", title},
                          {"releaseYear", 2001},
                          {"genre", "DRAMA"},
                          {"rating", 5},
                          {"directors", nlohmann::json::array({{{"firstName", "A"}, {"lastName", director}}})}}
        .dump();
}

std::size_t movies_by(std::uint16_t port, const std::string& director)
{
    raw_client client(port);
    auto r = client.get("/movies?delayInMillis=0&directorLastName=" + director);
    REQUIRE(r.status == 200);
    return nlohmann::json::parse(r.body).size();
}

// True when a new connection to `port` is refused or closed without an answer.
bool refuses_new_work(std::uint16_t port)
{
    try {
        raw_client client(port, {}, 2s);
        client.send_get("/io?delayInMillis=0", {}, 2s);
        client.read_response(3s);
        return false;
    } catch (const std::runtime_error&) {
        return true;
    }
}

}  // namespace

TEST_CASE("SIGTERM drains in-flight requests, refuses new ones and exits 0", "[lifecycle]")
{
    if (bench_server_path().empty())
        return;
    for (auto model : model_names) {
        INFO("model " << model);
        server_process server({"--model", std::string(model), "--threads", "8", "--shutdown-timeout", "10"});
        std::vector<std::unique_ptr<raw_client>> in_flight;
        for (int i = 0; i < 5; ++i) {
            in_flight.push_back(std::make_unique<raw_client>(server.port()));
            in_flight.back()->send_get("/io?delayInMillis=1500");
        }
        std::this_thread::sleep_for(300ms);  // all five are being served
        auto t0 = clock_type::now();
        server.process().signal(SIGTERM);
        std::this_thread::sleep_for(200ms);
        CHECK(refuses_new_work(server.port()));
        for (auto& client : in_flight) {
            auto r = client->read_response(5s);
            CHECK(r.status == 200);
            CHECK(r.body == "{\"waitedMillis\":1500}");
        }
        auto code = server.process().wait_exit(10s);
        REQUIRE(code.has_value());
        CHECK(*code == 0);
        CHECK(seconds_since(t0) < 5.0);
        CHECK(server.process().stderr_text().find("draining") != std::string::npos);
    }
}

TEST_CASE("The shutdown timeout bounds shutdown when requests are blocked, and the exit status says so", "[lifecycle]")
{
    if (bench_server_path().empty())
        return;
    for (auto model : model_names) {
        INFO("model " << model);
        server_process server({"--model", std::string(model), "--threads", "2", "--shutdown-timeout", "1"});
        std::vector<std::unique_ptr<raw_client>> blocked;
        // A long delay, and two requests calling the server itself: on pool's two workers they deadlock until the
        // downstream timeout (60 s), as both workers wait for answers only a worker could give.
        blocked.push_back(std::make_unique<raw_client>(server.port()));
        blocked.back()->send_get("/io?delayInMillis=30000");
        for (int i = 0; i < 2; ++i) {
            blocked.push_back(std::make_unique<raw_client>(server.port()));
            blocked.back()->send_get("/epoch-millis?delayCallDepth=1&delayInMillis=30000");
        }
        std::this_thread::sleep_for(300ms);
        auto t0 = clock_type::now();
        server.process().signal(SIGTERM);
        auto code = server.process().wait_exit(10s);
        REQUIRE(code.has_value());
        CHECK(*code == 1);
        auto took = seconds_since(t0);
        INFO("exited after " << took << " s");
        CHECK(took >= 0.9);
        CHECK(took < 3.0);
        CHECK(server.process().stderr_text().find("shutdown timeout reached") != std::string::npos);
        // Issue 23 §2: a wait cut short by the deadline is not answered as if it had run its course (the pool
        // answered 200 {"waitedMillis":30000} after one second); every model closes the connection unanswered.
        for (auto& client : blocked)
            CHECK(client->read_until_close(3s).empty());
    }
}

TEST_CASE("a second signal while draining exits at once", "[lifecycle]")
{
    if (bench_server_path().empty())
        return;
    server_process server({"--model", "loop", "--shutdown-timeout", "30"});
    raw_client slow(server.port());
    slow.send_get("/io?delayInMillis=20000");
    std::this_thread::sleep_for(300ms);
    server.process().signal(SIGTERM);
    std::this_thread::sleep_for(300ms);
    CHECK_FALSE(server.process().wait_exit(0ms).has_value());  // still draining the 20 s request
    auto t0 = clock_type::now();
    server.process().signal(SIGINT);
    auto code = server.process().wait_exit(3s);
    REQUIRE(code.has_value());
    CHECK(*code != 0);
    CHECK(seconds_since(t0) < 1.5);
}

TEST_CASE("every POST answered 201 survives kill -9, and rejected batches leave nothing", "[lifecycle][durability]")
{
    if (bench_server_path().empty())
        return;
    auto dir = std::filesystem::temp_directory_path() / ("execbench-durable-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto db = (dir / "movies.db").string();
    const std::string director = "Durable";

    std::atomic<int> created{0};
    std::atomic<int> sent{0};
    {
        server_process server({"--model", "fiber", "--threads", "2", "--movies-db", db});
        // A rejected batch (second movie invalid) leaves no row, before and after the crash.
        {
            raw_client client(server.port());
            client.send(post("[" + movie("kept?", "Rejected") + ",{\"title\":\"no year\"}]"));
            CHECK(client.read_response().status == 400);
        }
        // 100 clients post one movie at a time until the server dies under them.
        std::atomic<bool> dead{false};
        std::vector<std::thread> clients;
        for (int c = 0; c < 100; ++c) {
            clients.emplace_back([&, c] {
                try {
                    raw_client client(server.port(), {}, 5s);
                    for (int i = 0; !dead; ++i) {
                        client.send(post(movie("c" + std::to_string(c) + "-" + std::to_string(i), director)), 5s);
                        ++sent;
                        if (client.read_response(5s).status == 201)
                            ++created;
                    }
                } catch (const std::runtime_error&) {
                    // the kill cut this client off
                }
            });
        }
        REQUIRE(eventually([&] { return created >= 300; }, 20s));
        server.process().signal(SIGKILL);
        dead = true;
        for (auto& t : clients)
            t.join();
        REQUIRE(server.process().wait_exit(5s).has_value());
    }
    server_process restarted({"--model", "loop", "--threads", "1", "--movies-db", db});
    const auto stored = movies_by(restarted.port(), director);
    INFO("201s received " << created << ", requests sent " << sent << ", rows after restart " << stored);
    // Nothing acknowledged is lost; at most the requests in flight at the kill (one per client) were stored
    // without their 201 reaching the client.
    CHECK(stored >= static_cast<std::size_t>(created.load()));
    CHECK(stored <= static_cast<std::size_t>(created.load()) + 100);
    CHECK(movies_by(restarted.port(), "Rejected") == 0);
    restarted.process().signal(SIGTERM);
    CHECK(restarted.process().wait_exit(10s) == 0);
    std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("downstream down, silent or garbage gives 502/504 in time and the server stays healthy",
                   "[lifecycle][downstream]", EXECBENCH_EVERY_MODEL)
{
    struct downstream_case {
        const char* what;
        std::string url;
        unsigned status;
    };
    misbehaving_server silent(misbehaving_server::behaviour::never_answer);
    misbehaving_server garbage(misbehaving_server::behaviour::garbage);
    refused_port nothing;
    const std::vector<downstream_case> cases = {
        {"nothing listening", nothing.url(), 502},
        {"accepts but never answers", silent.url(), 504},
        {"answers garbage", garbage.url(), 502},
    };
    for (const auto& c : cases) {
        INFO("downstream " << c.what);
        server::options opts;
        opts.model = TestType::value;
        opts.threads = TestType::value == models::model::pool ? 4 : 1;
        opts.cpu_threads = 1;
        opts.downstream = c.url;
        opts.timeouts.downstream_response = 1s;
        option_server server(opts);
        raw_client client(server.port());
        for (int round = 0; round < 2; ++round) {
            auto t0 = clock_type::now();
            auto r = client.get("/io?delayCallDepth=1&delayInMillis=0", {}, 10s);
            CHECK(r.status == c.status);
            CHECK(r.body.find("\"error\"") != std::string::npos);
            CHECK(seconds_since(t0) < 4.0);
        }
        // Unaffected work goes on, on the same connection and on a new one.
        CHECK(client.get("/io?delayInMillis=0").status == 200);
        raw_client other(server.port());
        CHECK(other.get("/health").status == 200);
    }
}
