// The downstream clients of `--downstream-client` under every model: what their counters say they did, the
// `--downstream-connections` cap and its queue, and a misbehaving downstream answered with a clear 502 or 504 and no
// descriptor left behind.
#include "support/child_process.hpp"
#include "support/misbehaving_server.hpp"
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

std::size_t open_descriptors()
{
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
        ++n;
    return n;
}

server::options front_options(models::model model, models::downstream_client_kind client, const std::string& downstream)
{
    server::options opts;
    opts.model = model;
    // pool: enough workers for the concurrent calls below; the event models: two loops, so two clients.
    opts.threads = model == models::model::pool ? 8 : 2;
    opts.cpu_threads = 1;
    opts.downstream = downstream;
    opts.downstream_client.client = client;
    return opts;
}

/// Clients of the server's model: one per event loop (loop, coro), one for the others.
std::size_t client_count(models::model model, unsigned threads)
{
    return model == models::model::loop || model == models::model::coro ? threads : 1;
}

/// Sends `n` requests for `target` at once, each on its own connection; the statuses and bodies, in no order.
std::vector<raw_response> concurrently(std::uint16_t port, const std::string& target, int n)
{
    std::vector<std::future<raw_response>> calls;
    for (int i = 0; i < n; ++i)
        calls.push_back(std::async(std::launch::async, [port, target] {
            raw_client client(port);
            return client.get(target, {}, 20s);
        }));
    std::vector<raw_response> out;
    for (auto& c : calls)
        out.push_back(c.get());
    return out;
}

}  // namespace

TEMPLATE_TEST_CASE("each downstream client counts its calls and connections, and keeps to its cap",
                   "[downstream][clients]", EXECBENCH_EVERY_MODEL)
{
    const auto model = TestType::value;
    server::options down;
    down.model = models::model::loop;
    down.threads = 1;
    down.cpu_threads = 1;
    option_server downstream(down);
    const auto downstream_url = "http://127.0.0.1:" + std::to_string(downstream.port());

    SECTION("per-call opens one connection per call and reuses none")
    {
        auto opts = front_options(model, models::downstream_client_kind::per_call, downstream_url);
        option_server front(opts);
        raw_client client(front.port());
        for (int i = 0; i < 5; ++i)
            REQUIRE(client.get("/io?delayCallDepth=1&delayInMillis=0").status == 200);
        auto answers = concurrently(front.port(), "/io?delayCallDepth=1&delayInMillis=20", 6);
        for (const auto& r : answers)
            CHECK(r.status == 200);
        const auto& counted = front.instance().app().counters().downstream();
        CHECK(counted.calls() == 11);
        CHECK(counted.connections_opened() == 11);
        CHECK(counted.connections_reused() == 0);
    }

    for (auto kind : {models::downstream_client_kind::pooled, models::downstream_client_kind::curl}) {
        DYNAMIC_SECTION(models::to_string(kind) << " reuses its connections and never holds more than the cap")
        {
            auto opts = front_options(model, kind, downstream_url);
            opts.downstream_client.connections = 2;
            option_server front(opts);
            // Twelve calls of 100 ms at once against two connections per client: some must wait.
            auto answers = concurrently(front.port(), "/io?delayCallDepth=1&delayInMillis=100", 12);
            for (const auto& r : answers)
                CHECK(r.status == 200);
            const auto& counted = front.instance().app().counters().downstream();
            CHECK(counted.calls() == 12);
            CHECK(counted.connections_opened() >= 1);
            CHECK(counted.connections_opened() <= 2 * client_count(model, opts.threads));
            CHECK(counted.connections_opened() + counted.connections_reused() == 12);
            CHECK(counted.pool_waits() >= 1);
            CHECK(counted.pool_timeouts() == 0);
            // The metrics page says the same.
            raw_client client(front.port());
            auto metrics = client.get("/metrics").body;
            CHECK(metrics.find("\nexecbench_downstream_calls_total 12\n") != std::string::npos);
        }
        DYNAMIC_SECTION(models::to_string(kind) << " answers 503 when the queue for a connection is full, and 504 when "
                                                   "the wait outlasts the downstream timeout")
        {
            auto opts = front_options(model, kind, downstream_url);
            opts.threads = model == models::model::pool ? 8 : 1;  // one client, so one cap
            opts.downstream_client.connections = 1;
            opts.downstream_client.queue = 2;
            opts.timeouts.downstream_response = 1s;
            option_server front(opts);
            // The first holds the one connection 700 ms, the second waits for it and holds it 700 ms more, the
            // third waits past the 1 s timeout, the fourth finds the queue full.
            auto answers = concurrently(front.port(), "/io?delayCallDepth=1&delayInMillis=700", 4);
            std::map<unsigned, int> statuses;
            for (const auto& r : answers) {
                ++statuses[r.status];
                if (r.status == 503)
                    CHECK(r.body.find("--downstream-queue") != std::string::npos);
                if (r.status == 504)
                    CHECK(r.body.find("--downstream-connections 1") != std::string::npos);
            }
            CHECK(statuses[503] == 1);
            CHECK(statuses[504] == 1);
            CHECK(statuses[200] == 2);
            const auto& counted = front.instance().app().counters().downstream();
            CHECK(counted.pool_rejections() == 1);
            CHECK(counted.pool_timeouts() == 1);
            CHECK(counted.connections_opened() == 1);
        }
    }
}

TEMPLATE_TEST_CASE("every downstream client answers a misbehaving downstream with 502 or 504 and leaks nothing",
                   "[downstream][clients]", EXECBENCH_EVERY_MODEL)
{
    struct downstream_case {
        const char* what;
        misbehaving_server server;
        unsigned status;
    };
    downstream_case cases[] = {
        {"answers garbage", misbehaving_server(misbehaving_server::behaviour::garbage), 502},
        {"closes mid-answer", misbehaving_server(misbehaving_server::behaviour::close_mid_answer), 502},
        {"never answers", misbehaving_server(misbehaving_server::behaviour::never_answer), 504},
    };
    for (auto kind : models::all_downstream_clients) {
        for (auto& c : cases) {
            INFO("client " << models::to_string(kind) << ", downstream " << c.what);
            auto opts = front_options(TestType::value, kind, c.server.url());
            opts.timeouts.downstream_response = 300ms;
            option_server front(opts);
            raw_client client(front.port());
            auto call = [&] {
                auto t0 = clock_type::now();
                auto r = client.get("/io?delayCallDepth=1&delayInMillis=0", {}, 10s);
                INFO(r.body);
                CHECK(r.status == c.status);
                CHECK(r.body.find("\"error\":\"downstream call to") != std::string::npos);
                CHECK(clock_type::now() - t0 < 5s);
            };
            // The baseline after a first call: what a client keeps for reuse (curl's easy handle holds a wake-up
            // socket pair of its own) is no leak; what every further call leaves behind is.
            call();
            auto baseline = open_descriptors();
            (void)eventually([&] { return (baseline = std::min(baseline, open_descriptors())) == 0; }, 300ms);
            call();
            call();
            CHECK(client.get("/io?delayInMillis=0").status == 200);
            // Both ends of every downstream connection closed: the misbehaving server runs in this process too.
            CHECK(eventually([&] { return open_descriptors() <= baseline; }, 5s));
        }
    }
}

TEMPLATE_TEST_CASE("every downstream client calls an https downstream, checking its certificate only when told",
                   "[downstream][clients][tls]", EXECBENCH_EVERY_MODEL)
{
    server::options down;
    down.model = models::model::loop;
    down.threads = 1;
    down.cpu_threads = 1;
    down.tls = true;  // a self-signed certificate made at start
    option_server downstream(down);
    const auto downstream_url = "https://127.0.0.1:" + std::to_string(downstream.port());

    for (auto kind : models::all_downstream_clients) {
        INFO("client " << models::to_string(kind));
        {
            // Not checked by default. Two calls on one connection to the front, so the pooled and curl clients
            // reuse their TLS connection for the second.
            option_server front(front_options(TestType::value, kind, downstream_url));
            raw_client client(front.port());
            for (int i = 0; i < 2; ++i) {
                auto r = client.get("/io?delayCallDepth=1&delayInMillis=0", {}, 10s);
                INFO(r.body);
                CHECK(r.status == 200);
            }
            const auto& counted = front.instance().app().counters().downstream();
            CHECK(counted.calls() == 2);
            CHECK(counted.connections_opened() == (kind == models::downstream_client_kind::per_call ? 2u : 1u));
        }
        {
            // --downstream-tls-verify: the self-signed certificate is no CA's, so the call fails and says why.
            auto opts = front_options(TestType::value, kind, downstream_url);
            opts.downstream_client.tls.verify = true;
            option_server front(opts);
            raw_client client(front.port());
            auto r = client.get("/io?delayCallDepth=1&delayInMillis=0", {}, 10s);
            INFO(r.body);
            CHECK(r.status == 502);
            CHECK(r.body.find("certificate") != std::string::npos);
        }
    }
}
