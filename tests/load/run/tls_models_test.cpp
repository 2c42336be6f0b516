// bench-load's engine over https against bench-server --tls under every model: keep-alive, churn with resumption,
// pipelining, each with no errors and the handshakes counted.
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/suite/server_process.hpp"

#include "support/child_process.hpp"
#include "support/one_trial_scenario.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

using namespace execbench::load;
using namespace std::chrono_literals;
using namespace execbench::test_support;

namespace {

/// bench-server --tls of `model` on a port of its choosing, ready (its /health answered over TLS) when constructed.
class tls_bench_server {
public:
    explicit tls_bench_server(execbench::models::model model)
        : process_({bench_server_path(), "--model", model_name(model), "--tls", "--port", "0", "--threads", "8",
                    "--cpu-threads", "2"})
    {
        auto line = process_.read_line(10s);
        auto port = announced_port(line);
        INFO(line << process_.stderr_text());
        REQUIRE(port);
        url_ = "https://127.0.0.1:" + std::to_string(*port);
        auto t = resolve_target(url_, false);
        REQUIRE(t);
        const auto peer = execbench::load::detail::request_peer::of(*t);
        auto deadline = std::chrono::steady_clock::now() + 10s;
        for (;;) {
            auto h = execbench::load::detail::http_get(peer, "/health", 1000ms);
            if (h && h->status == 200)
                return;
            INFO((h ? std::string() : h.err().message));
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(50ms);
        }
    }
    [[nodiscard]] const std::string& url() const noexcept { return url_; }

private:
    child_process process_;
    std::string url_;
};

counters counts_of(const scenario& s, const std::string& url)
{
    run_options o;
    o.url = url;
    auto r = run(s, o);
    INFO((r ? std::string() : r.err().message));
    REQUIRE(r);
    REQUIRE(r->trials.size() == 1);
    return r->trials.front().measured.foreground.count;
}

}  // namespace

TEMPLATE_TEST_CASE("bench-load over https against bench-server --tls: keep-alive, churn with resumption, pipelining",
                   "[load][tls][integration]", EXECBENCH_EVERY_MODEL)
{
    tls_bench_server server(TestType::value);
    auto s = one_trial_of("/epoch-millis?delayInMillis=0", shape::burst, 5s, "tls-" + model_name(TestType::value));
    // Keep-alive: 200 requests on 4 connections, 4 full handshakes. Then every request on a new connection: one
    // handshake each, resumed after each slot's first (the server's tickets are on).
    struct expected {
        std::uint64_t requests, per_connection, connections, opened, full, resumed;
    };
    for (auto e : {expected{200, 0, 4, 4, 4, 0}, expected{40, 1, 2, 40, 2, 38}}) {
        s.load.requests = e.requests;
        s.load.connections = static_cast<std::uint32_t>(e.connections);
        s.load.requests_per_connection = static_cast<std::uint32_t>(e.per_connection);
        auto c = counts_of(s, server.url());
        INFO(e.requests << " requests, " << e.per_connection << " per connection");
        CHECK(c.ok == e.requests);
        CHECK(c.error_total() == 0);
        CHECK(c.connections_opened == e.opened);
        CHECK(c.tls_full == e.full);
        CHECK(c.tls_resumed == e.resumed);
    }

    auto piped = one_trial_of("/epoch-millis?delayInMillis=0", shape::closed, 5s, "tls-pipelined");
    piped.load.connections = 2;
    piped.load.pipeline = 8;
    piped.load.length = 300ms;
    auto p = counts_of(piped, server.url());
    CHECK(p.error_total() == 0);
    CHECK(p.ok >= 16);
}
