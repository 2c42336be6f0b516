// bench-load over HTTP/2 against nginx (Debian's, http2 on): h2c with prior knowledge and h2 over TLS, the closed,
// open and burst shapes at 1 and 10 streams, a server's graceful GOAWAY, and servers that do not speak h2. nginx runs
// from a configuration of this test's own (peers/nginx/run is the suites' arm, not this test's).
#include "execbench/load/engine/target.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/run/arm.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/load/run/preflight.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/suite.hpp"

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/one_trial_scenario.hpp"
#include "support/run_once.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using namespace execbench::load;
using execbench::test_support::child_process;
using execbench::test_support::free_port;

const char* nginx_path()
{
    for (const char* p : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"})
        if (::access(p, X_OK) == 0)
            return ::access("/usr/bin/openssl", X_OK) == 0 ? p : nullptr;
    return nullptr;
}

/// nginx with one worker on five ports: h2c (prior knowledge), h2 over TLS, h2c that sends GOAWAY after 50 requests
/// on a connection, TLS without HTTP/2, and cleartext HTTP/1.1. Stopped with SIGTERM, which its workers follow.
struct h2_nginx {
    execbench::test_support::temp_dir dir{"execbench-h2-load-test"};
    std::uint16_t h2c = free_port(), h2 = free_port(), h2c_limited = free_port(), tls_h1 = free_port(),
                  h1 = free_port();
    std::optional<child_process> process;

    explicit h2_nginx(const char* nginx)
    {
        auto d = dir.path.string();
        child_process cert({"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-keyout",
                            d + "/key.pem", "-out", d + "/cert.pem"});
        REQUIRE(cert.wait_exit(20s) == 0);
        auto listen = [](std::uint16_t port, const char* how) {
            return "listen 127.0.0.1:" + std::to_string(port) + how + ";";
        };
        const std::string locations = R"(
            location = /epoch-millis { default_type application/json; return 200 "$msec"; }
            location = /health { default_type application/json; return 200 '{"status":"UP"}'; }
            location = /unavailable { return 503; }
            location / { return 404; })";
        std::ofstream(dir.path / "nginx.conf")
            << "worker_processes 1; daemon off; pid " << d << "/nginx.pid; error_log stderr warn;\n"
            << "events { worker_connections 1024; }\n"
            << "http { access_log off; client_body_temp_path " << d << "; keepalive_requests 100000;\n"
            << "  ssl_certificate " << d << "/cert.pem; ssl_certificate_key " << d << "/key.pem;\n"
            << "  server { " << listen(h2c, " http2") << listen(h2, " ssl http2") << listen(tls_h1, " ssl")
            << listen(h1, "") << locations << " }\n"
            << "  server { " << listen(h2c_limited, " http2") << " keepalive_requests 50; " << locations << " }\n"
            << "}\n";
        process.emplace(std::vector<std::string>{nginx, "-e", "stderr", "-p", d, "-c", d + "/nginx.conf"});
        wait_ready();
    }
    ~h2_nginx()
    {
        process->signal(SIGTERM);
        (void)process->wait_exit(10s);
    }
    h2_nginx(const h2_nginx&) = delete;
    h2_nginx& operator=(const h2_nginx&) = delete;

    /// Returns once the HTTP/1.1 port answers /health (nginx listens on every port by then); fails after 10 s.
    void wait_ready()
    {
        auto t = resolve_target(url("http", h1), false);
        REQUIRE(t);
        auto deadline = std::chrono::steady_clock::now() + 10s;
        for (;;) {
            auto h = detail::http_get(detail::request_peer::of(*t), "/health", 1000ms);
            if (h && h->status == 200)
                return;
            INFO("nginx: " << process->stderr_text() << (h ? "" : h.err().message));
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(50ms);
        }
    }

    static std::string url(const char* scheme, std::uint16_t port)
    {
        return std::string(scheme) + "://127.0.0.1:" + std::to_string(port);
    }
};

scenario h2_of(shape kind, std::uint32_t connections, std::uint32_t streams, const std::string& path = "/epoch-millis")
{
    auto s = execbench::test_support::one_trial_of(path, kind, 5s, "h2");
    s.protocol = http_protocol::h2;
    s.streams = streams;
    s.load.connections = connections;
    s.load.length = 400ms;
    s.connect_timeout = 5s;
    return s;
}

counters run_counts(const scenario& s, const std::string& url)
{
    return execbench::test_support::run_ok(s, url).trials.front().measured.foreground.count;
}

/// A server on a loopback port that answers each connection, on a thread of its own, with `frames` once it read the client's
/// first bytes (its preface, SETTINGS and first request; or bench-load's HTTP/1.1 /health probe), and closes it once
/// the client does; every wait is bounded.
class one_answer_h2_server {
public:
    explicit one_answer_h2_server(std::string frames) : frames_(std::move(frames))
    {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(listener_, 4) == 0);
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~one_answer_h2_server()
    {
        stop_ = true;
        thread_.join();
        for (auto& t : answering_)
            t.join();
        ::close(listener_);
    }
    one_answer_h2_server(const one_answer_h2_server&) = delete;
    one_answer_h2_server& operator=(const one_answer_h2_server&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    static bool readable(int fd, int millis = 5000)
    {
        pollfd p{fd, POLLIN, 0};
        return ::poll(&p, 1, millis) == 1;
    }
    void serve()
    {
        while (!stop_) {
            if (!readable(listener_, 50))
                continue;
            // Apart: bench-load's /health probe must not hold up the connection of the load.
            if (int fd = ::accept(listener_, nullptr, nullptr); fd >= 0)
                answering_.emplace_back([this, fd] { answer(fd); });
        }
    }
    void answer(int fd)
    {
        char buf[4096];
        std::size_t got = 0;
        // The preface (24 bytes), an empty SETTINGS (9) and a request's HEADERS frame.
        while (got < 24 + 9 + 9 && readable(fd)) {
            auto n = ::read(fd, buf, sizeof buf);
            if (n <= 0)
                break;
            got += static_cast<std::size_t>(n);
        }
        (void)::send(fd, frames_.data(), frames_.size(), MSG_NOSIGNAL);
        while (readable(fd) && ::read(fd, buf, sizeof buf) > 0) {
        }
        ::close(fd);
    }

    std::string frames_;
    std::atomic<bool> stop_{false};
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::thread thread_;
    std::vector<std::thread> answering_;  // the accepting thread's alone until it is joined
};

/// An HTTP/2 frame: its 9-byte header (length, type, no flags, stream id) and its payload.
std::string frame(std::uint8_t type, std::uint32_t stream, const std::string& payload)
{
    auto n = payload.size();
    std::string f{char(n >> 16), char(n >> 8), char(n), char(type), 0,
                  char(stream >> 24), char(stream >> 16), char(stream >> 8), char(stream)};
    return f + payload;
}

std::string u32(std::uint32_t v)
{
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

}  // namespace

TEST_CASE("a stream the server resets is errors_h2_reset, and a GOAWAY with an error code fails what it cut off",
          "[load][http2][integration]")
{
    const auto settings = frame(0x4, 0, "");
    auto s = h2_of(shape::burst, 1, 1);
    s.load.requests = 1;
    SECTION("RST_STREAM(INTERNAL_ERROR) on the request's stream")
    {
        one_answer_h2_server server(settings + frame(0x3, 1, u32(0x2)));
        auto c = run_counts(s, server.url());
        CHECK(c.errors[static_cast<std::size_t>(error_class::h2_reset)] == 1);
        CHECK(c.error_total() == 1);
    }
    SECTION("GOAWAY(ENHANCE_YOUR_CALM) before the request's stream, then the close")
    {
        one_answer_h2_server server(settings + frame(0x7, 0, u32(0) + u32(0xb)));
        auto c = run_counts(s, server.url());
        CHECK(c.errors[static_cast<std::size_t>(error_class::h2_goaway)] == 1);
        CHECK(c.error_total() == 1);
    }
}

TEST_CASE("HTTP/2 against nginx: h2c and h2 over TLS, closed, open and burst at 1 and 10 streams, no errors",
          "[load][http2][integration]")
{
    const char* nginx = nginx_path();
    if (!nginx) {
        WARN("skipped: nginx or openssl is not installed (.ci/setup installs them)");
        return;
    }
    h2_nginx server(nginx);
    const auto h2c = h2_nginx::url("http", server.h2c);
    const auto h2 = h2_nginx::url("https", server.h2);

    SECTION("closed loop, 1 and 10 streams on 2 connections, cleartext and TLS")
    {
        for (const auto& url : {h2c, h2}) {
            for (std::uint32_t streams : {1u, 10u}) {
                INFO(url << " at " << streams << " streams");
                auto c = run_counts(h2_of(shape::closed, 2, streams), url);
                CHECK(c.error_total() == 0);
                CHECK(c.ok >= 20);
                CHECK(c.connections_opened == 2);  // every stream on the two pre-connected connections
                CHECK(c.tls_full == (url == h2 ? 2u : 0u));
            }
        }
    }
    SECTION("a burst of 300 on 2 connections at 10 streams: each answered once")
    {
        auto s = h2_of(shape::burst, 2, 10);
        s.load.requests = 300;
        auto c = run_counts(s, h2c);
        CHECK(c.ok == 300);
        CHECK(c.error_total() == 0);
        CHECK(c.connections_opened == 2);
    }
    SECTION("the open shape at 400 req/s on 2 connections, 1 and 10 streams")
    {
        for (std::uint32_t streams : {1u, 10u}) {
            INFO(streams << " streams");
            auto s = h2_of(shape::open, 2, streams);
            s.load.rate = 400;
            s.load.length = 500ms;
            auto c = run_counts(s, h2);
            CHECK(c.error_total() == 0);
            CHECK(c.ok + c.unsent >= 180);
            CHECK(c.ok >= 150);
        }
    }
    SECTION("a server's graceful GOAWAY after 50 requests: the streams it never began go again, no errors")
    {
        auto s = h2_of(shape::burst, 1, 10);
        s.load.requests = 300;
        auto c = run_counts(s, h2_nginx::url("http", server.h2c_limited));
        CHECK(c.ok == 300);
        CHECK(c.error_total() == 0);
        CHECK(c.connections_opened >= 6);
    }
    SECTION("answers of 5xx count as http_5xx errors, as under HTTP/1.1")
    {
        auto s = h2_of(shape::burst, 1, 10, "/unavailable");
        s.load.requests = 20;
        auto c = run_counts(s, h2c);
        CHECK(c.ok == 0);
        CHECK(c.errors[static_cast<std::size_t>(error_class::http_5xx)] == 20);
        CHECK(c.error_total() == 20);
    }
    SECTION("servers without HTTP/2: the pre-flight says why, each request fails at once")
    {
        auto s = h2_of(shape::burst, 1, 1);
        s.load.requests = 3;
        auto tls_h1 = h2_nginx::url("https", server.tls_h1);
        auto t = resolve_target(tls_h1, false);
        REQUIRE(t);
        auto first = preflight(s, *t, 5000ms);
        REQUIRE_FALSE(first);
        CHECK_THAT(first.err().message, Catch::Contains("over HTTP/2") && Catch::Contains("did not select h2"));
        auto c = run_counts(s, tls_h1);
        CHECK(c.errors[static_cast<std::size_t>(error_class::tls_handshake)] == 3);
        CHECK(c.ok == 0);

        auto h1 = resolve_target(h2_nginx::url("http", server.h1), false);
        REQUIRE(h1);
        auto plain = preflight(s, *h1, 5000ms);
        REQUIRE_FALSE(plain);
        CHECK_THAT(plain.err().message, Catch::Contains("no HTTP/2 answer to h2c with prior knowledge"));
    }
    SECTION("bench-load --http2 --streams 10 as a user runs it; --pipeline with --http2 is refused with exit 2")
    {
        child_process p({EXECBENCH_BENCH_LOAD_PATH, "--url", h2c + "/epoch-millis", "--http2", "--streams", "10",
                         "-c", "2", "-d", "300ms", "--format", "json", "--quiet"});
        auto code = p.wait_exit(20s);
        INFO(p.stderr_text());
        REQUIRE(code == 0);
        // One JSON object a line: the trial's, then the run's; each says what it spoke.
        auto line = p.read_line(1000ms);
        auto j = nlohmann::json::parse(line, nullptr, false);
        INFO(line);
        REQUIRE(j.is_object());
        CHECK(j.value("protocol", "") == "h2");
        CHECK(j.value("streams", 0) == 10);
        CHECK(j["metrics"].value("requests_error", -1) == 0);
        CHECK(j["metrics"].value("requests_ok", 0) > 0);

        child_process refused({EXECBENCH_BENCH_LOAD_PATH, "--url", h2c, "--http2", "--pipeline", "4", "--quiet"});
        REQUIRE(refused.wait_exit(10s) == 2);
        CHECK_THAT(refused.stderr_text(), Catch::Contains("--pipeline: HTTP/1.1 pipelining, not with --http2"));
    }
}

TEST_CASE("an h2 scenario under bench-suite: its streams go to the arm as written, and its rows say h2",
          "[load][suite][http2][integration]")
{
    const char* nginx = nginx_path();
    if (!nginx) {
        WARN("skipped: nginx or openssl is not installed (.ci/setup installs them)");
        return;
    }
    execbench::test_support::temp_dir d("execbench-h2-suite-test");
    const auto dir = d.path.string();
    std::filesystem::create_directories(d.path / "scenarios");
    std::ofstream(d.path / "scenarios" / "streams.json") << R"({"description": "h2c streams", "suites": ["t"],
        "requests": [{"path": "/epoch-millis"}], "protocol": "h2", "streams": 10,
        "load": {"shape": "burst", "requests": 200, "connections": 2}, "trials": 1, "timeout": "5s"})";
    // An h2c-only nginx on the suite's port: the arm is ready once it accepts connections.
    std::ofstream(d.path / "nginx-h2c") << "set -e\nmkdir -p \"" << dir << "/$1\"\ncat > \"" << dir
                                        << "/$1/nginx.conf\" <<EOF\nworker_processes 1; daemon off; pid " << dir
                                        << "/$1/nginx.pid; error_log stderr warn; events {}\n"
                                        << "http { access_log off; server { listen 127.0.0.1:$1 http2; location = "
                                           "/epoch-millis { return 200 '1'; } } }\nEOF\n"
                                        << "exec " << nginx << " -e stderr -p \"" << dir << "/$1\" -c \"" << dir
                                        << "/$1/nginx.conf\"\n";
    suite_options o;
    o.suite = "t";
    o.scenarios = {load_named_scenario(d.path / "scenarios", "streams").value()};
    REQUIRE(o.scenarios.front().protocol == http_protocol::h2);
    o.out_dir = d.path / "out";
    o.server_binary = execbench::test_support::bench_server_path();
    auto arm = parse_arm("nginx=cmd:exec /bin/sh '" + dir + "/nginx-h2c' {port}");
    REQUIRE(arm);
    o.arms = {*arm};
    auto entries = run_suite(o);
    REQUIRE(entries);
    REQUIRE(entries->size() == 1);
    INFO(entries->front().message);
    CHECK(entries->front().status == run_status::ok);
    auto summary = read_csv(o.out_dir / "t.csv");
    REQUIRE(summary);
    REQUIRE(summary->rows.size() == 1);
    auto cell = [&](std::string_view name) { return summary->rows.front().at(std::size_t(summary->column(name))); };
    CHECK(cell("protocol") == "h2");
    CHECK(cell("streams") == "10");
    CHECK(cell("tls") == "0");
    CHECK(cell("requests_ok") == "200");
    CHECK(cell("requests_error") == "0");
    CHECK(cell("connections_opened") == "2");
}
