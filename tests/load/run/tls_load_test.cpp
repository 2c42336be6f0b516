// bench-load over https: against nginx serving TLS (peers/nginx/run ... tls, a certificate made by openssl req at
// its start) and against a server that speaks no TLS.
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/load/run/runner.hpp"

#include "support/child_process.hpp"
#include "support/one_trial_scenario.hpp"
#include "support/run_once.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using namespace execbench::load;
using execbench::test_support::run_ok;

bool have_nginx()
{
    for (const char* p : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"})
        if (::access(p, X_OK) == 0)
            return ::access("/usr/bin/openssl", X_OK) == 0;
    return false;
}

/// A port nothing listens on now (bound, read and released).
std::uint16_t free_port()
{
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    ::close(fd);
    return ntohs(a.sin_port);
}

/// nginx serving https on a free port with one worker; wait_ready() before use. Its files (and its certificate) live
/// under a folder of the test's own, not in /tmp, where a test running beside it checks that nginx's folders are gone
/// (own_server_test).
struct tls_nginx {
    std::uint16_t port = free_port();
    execbench::test_support::temp_dir dir{"execbench-tls-load-test"};
    execbench::test_support::child_process process{{"/usr/bin/env", "TMPDIR=" + dir.path.string(), "/bin/sh",
                                                    std::string(EXECBENCH_SOURCE_DIR) + "/peers/nginx/run",
                                                    std::to_string(port), "1", "1024", "tls"}};

    tls_nginx() = default;

    /// Returns once /health answers over TLS; fails the test after 10 s (the destructor still stops nginx).
    void wait_ready() const
    {
        auto t = resolve_target(url(), false);
        REQUIRE(t);
        auto peer = detail::request_peer::of(*t);
        auto deadline = std::chrono::steady_clock::now() + 10s;
        for (;;) {
            auto h = detail::http_get(peer, "/health", 1000ms);
            if (h && h->status == 200)
                return;
            INFO("nginx: " << process.stderr_text() << (h ? "" : h.err().message));
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(50ms);
        }
    }
    /// SIGTERM to the run script, which stops nginx and waits for it: the child's own SIGKILL would leave nginx
    /// running, an orphan.
    ~tls_nginx()
    {
        process.signal(SIGTERM);
        (void)process.wait_exit(10s);
    }
    tls_nginx(const tls_nginx&) = delete;
    tls_nginx& operator=(const tls_nginx&) = delete;

    [[nodiscard]] std::string url() const { return "https://127.0.0.1:" + std::to_string(port); }
};

scenario of_shape(shape kind)
{
    return execbench::test_support::one_trial_of("/epoch-millis", kind, 5s, "tls");
}

/// A burst of `requests` on `connections`, each connection closed after `per_connection` requests (0: keep-alive).
scenario burst(std::uint64_t requests, std::uint32_t connections, std::uint32_t per_connection = 0)
{
    auto s = of_shape(shape::burst);
    s.load.requests = requests;
    s.load.connections = connections;
    s.load.requests_per_connection = per_connection;
    return s;
}

const group_measurement& fg(const run_record& r)
{
    return r.trials.front().measured.foreground;
}

}  // namespace

TEST_CASE("https against nginx: every shape without errors, churn counts its handshakes, resumption on and off",
          "[load][tls][integration]")
{
    if (!have_nginx()) {
        WARN("skipped: nginx or openssl is not installed (.ci/setup installs them)");
        return;
    }
    tls_nginx nginx;
    nginx.wait_ready();

    SECTION("a burst of 300 on 3 keep-alive connections: 3 full handshakes, no errors")
    {
        auto r = run_ok(burst(300, 3), nginx.url());
        const auto& m = fg(r);
        CHECK(m.count.ok == 300);
        CHECK(m.count.error_total() == 0);
        CHECK(m.count.connections_opened == 3);
        CHECK(m.count.tls_full == 3);
        CHECK(m.count.tls_resumed == 0);
        CHECK(m.connect.count() == 3);
        CHECK(m.connect.min() > 0);
    }
    SECTION("the open shape at a fixed rate, and pipelined requests, over TLS")
    {
        auto paced = of_shape(shape::open);
        paced.load.rate = 400;
        paced.load.connections = 4;
        paced.load.length = 500ms;
        const auto o = fg(run_ok(paced, nginx.url())).count;
        CHECK(o.error_total() == 0);
        CHECK(o.ok + o.unsent >= 180);
        CHECK(o.ok >= 150);

        auto piped = of_shape(shape::closed);
        piped.load.connections = 2;
        piped.load.pipeline = 8;  // eight requests in one TLS record, their answers read across records
        piped.load.length = 300ms;
        const auto p = fg(run_ok(piped, nginx.url())).count;
        CHECK(p.error_total() == 0);
        CHECK(p.ok >= 16);
        CHECK(p.connections_opened == 2);
    }
    SECTION("a new connection per request: one handshake each, resumed after each slot's first")
    {
        auto s = burst(60, 2, 1);
        auto on = run_ok(s, nginx.url());
        const auto& m = fg(on);
        CHECK(m.count.ok == 60);
        CHECK(m.count.error_total() == 0);
        CHECK(m.count.connections_opened == 60);
        CHECK(m.count.tls_full + m.count.tls_resumed == 60);
        CHECK(m.count.tls_full == 2);  // each slot's first connection; every later one offers a ticket
        CHECK(m.count.tls_resumed == 58);

        s.tls_resume = false;
        auto off = run_ok(s, nginx.url());
        CHECK(fg(off).count.ok == 60);
        CHECK(fg(off).count.connections_opened == 60);
        CHECK(fg(off).count.tls_full == 60);
        CHECK(fg(off).count.tls_resumed == 0);
    }
}

TEST_CASE("https to a server that speaks no TLS: every request a tls_handshake error, at once",
          "[load][tls][integration]")
{
    execbench::test_support::test_server plain(execbench::models::model::loop);
    auto s = burst(5, 1);
    s.connect_timeout = 5s;
    auto started = std::chrono::steady_clock::now();
    auto r = run_ok(s, "https://127.0.0.1:" + std::to_string(plain.port()));
    CHECK(std::chrono::steady_clock::now() - started < 5s);  // not the connect timeout: the handshake fails
    const auto& m = fg(r);
    CHECK(m.count.ok == 0);
    CHECK(m.count.errors[static_cast<std::size_t>(error_class::tls_handshake)] == 5);
    CHECK(m.count.error_total() == 5);
    CHECK(m.count.connections_opened == 0);

    // The small requests (pre-flight, /health) say so in words.
    auto t = resolve_target("https://127.0.0.1:" + std::to_string(plain.port()), false);
    REQUIRE(t);
    auto answer = detail::http_get(detail::request_peer::of(*t), "/health", 5000ms);
    REQUIRE_FALSE(answer);
    CHECK_THAT(answer.err().message, Catch::Contains("TLS handshake") && Catch::Contains("http://"));
}

TEST_CASE("a TLS scenario refuses an http:// URL, naming both", "[load][tls][integration]")
{
    execbench::test_support::test_server plain(execbench::models::model::loop);
    auto s = burst(1, 1);
    s.tls = true;
    run_options o;
    o.url = "http://127.0.0.1:" + std::to_string(plain.port());
    auto r = run(s, o);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.err().message, Catch::Contains("\"tls\": true") && Catch::Contains("https://"));
}
