// The command line's first five minutes (issue 10): the binaries as a new user runs them, against a real
// bench-server on loopback. Each case is one mistake that used to go unnoticed or one message that used to differ.
#include "support/child_process.hpp"
#include "support/misbehaving_server.hpp"
#include "support/raw_client.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <csignal>
#include <sys/types.h>

namespace {

using namespace execbench::test_support;
using namespace std::chrono_literals;

/// bench-load against `port` with short settings, plus `extra`.
std::vector<std::string> quick_load(std::uint16_t port, std::vector<std::string> extra)
{
    std::vector<std::string> argv{bench_load_path(), "--url", "http://127.0.0.1:" + std::to_string(port),
                                  "--warmup",        "0s",    "--scenarios-dir",
                                  scenarios_dir()};
    if (std::find(extra.begin(), extra.end(), "--trials") == extra.end())
        argv.insert(argv.end(), {"--trials", "1"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

}  // namespace

TEST_CASE("bench-load: --rate alone means the open shape, said on stderr (wrk2's -R)", "[cli][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    // The issue's case: this ran an unthrottled closed loop at 38,000 req/s.
    auto r = run_tool(quick_load(
        server.port(), {"--path", "/health", "--rate", "200", "--connections", "2", "--duration", "1s", "--quiet"}));
    INFO(r.err << r.out_text());
    REQUIRE(r.code == 0);
    CHECK_THAT(r.err, Catch::Contains("--rate implies --shape open"));
    REQUIRE_FALSE(r.out.empty());
    auto total_at = r.out.back().find("total=");
    REQUIRE(total_at != std::string::npos);
    auto total = std::stol(r.out.back().substr(total_at + 6));
    CHECK(total >= 150);
    CHECK(total <= 260);  // 200 req/s for 1 s, not tens of thousands
}

TEST_CASE("bench-load rejects a flag the scenario's shape does not use", "[cli][load][integration]")
{
    if (bench_load_path().empty())
        return;
    auto rate = run_tool(quick_load(1, {"--scenario", "closed-epoch-millis", "--rate", "200"}));
    CHECK(rate.code == 2);
    CHECK_THAT(rate.err, Catch::Contains("bench-load: --rate: not used by shape closed; add --shape open"));
    auto duration = run_tool(quick_load(1, {"--scenario", "io-600", "--duration", "5s"}));
    CHECK(duration.code == 2);
    CHECK_THAT(duration.err, Catch::Contains("--duration: not used by shape burst"));
    auto requests = run_tool(quick_load(1, {"--requests", "5", "--duration", "1s"}));
    CHECK(requests.code == 2);
    CHECK_THAT(requests.err, Catch::Contains("--requests: not used by shape closed; add --shape burst"));
}

TEST_CASE("bench-load takes a full URL as the request target, and the default target is served",
          "[cli][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=fiber", "--threads", "1"});
    const auto base = "http://127.0.0.1:" + std::to_string(server.port());
    SECTION("the issue's case: a path and a query in --url")
    {
        auto r = run_tool({bench_load_path(), "--url", base + "/io?delayInMillis=5", "--connections", "2", "--duration",
                           "500ms", "--trials", "1", "--warmup", "0s"});
        INFO(r.err << r.out_text());
        CHECK(r.code == 0);
        CHECK_THAT(r.err, Catch::Contains("target GET " + base.substr(7) + "/io?delayInMillis=5") ||
                              Catch::Contains("target GET http://127.0.0.1:" + std::to_string(server.port()) +
                                              "/io?delayInMillis=5"));
        REQUIRE_FALSE(r.out.empty());
        CHECK_THAT(r.out.back(), Catch::StartsWith("fiber ad-hoc") && Catch::Contains(" errors=0 "));
    }
    SECTION("no --path: a target bench-server serves")
    {
        auto r = run_tool({bench_load_path(), "--url", base, "--connections", "2", "--duration", "300ms", "--trials",
                           "1", "--warmup", "0s", "--quiet"});
        INFO(r.err << r.out_text());
        CHECK(r.code == 0);
        REQUIRE_FALSE(r.out.empty());
        CHECK_THAT(r.out.back(), Catch::Contains(" errors=0 "));
    }
    SECTION("a query in --url beside --path is refused, not mangled")
    {
        auto r = run_tool({bench_load_path(), "--url", base + "/io?delayInMillis=5", "--path", "/health"});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--url:") && Catch::Contains("put the query in --path"));
    }
}

TEST_CASE("bench-load's pre-flight stops a run that cannot succeed, unless --allow-errors", "[cli][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    {
        INFO("nothing listens");
        auto started = std::chrono::steady_clock::now();
        refused_port nothing;
        auto r = run_tool(quick_load(nothing.port(), {"--scenario", "io-600", "--quiet"}));
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("pre-flight request failed") && Catch::Contains("connection refused"));
        CHECK(r.out.empty());
        CHECK(std::chrono::steady_clock::now() - started < 10s);
    }
    server_process server({"--model=loop", "--threads", "1"});
    {
        INFO("a path the server does not serve");
        auto r = run_tool(quick_load(server.port(), {"--path", "/nope", "--duration", "5s", "--quiet"}));
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("answered 404"));
    }
    {
        INFO("--allow-errors runs anyway and says what the errors were");
        refused_port nothing;
        auto r = run_tool(quick_load(
            nothing.port(), {"--shape", "burst", "--requests", "4", "--allow-errors", "--timeout", "1s", "--quiet"}));
        CHECK(r.code == 1);
        REQUIRE_FALSE(r.out.empty());
        CHECK_THAT(r.out.back(), Catch::Contains("errors=4 (connect_refused=4)") &&
                                     Catch::Contains("no successful requests") && !Catch::Contains("p50="));
    }
    {
        INFO("a scenario that wants a separate downstream against a server calling itself");
        auto r = run_tool(quick_load(
            server.port(), {"--scenario", "downstream-100", "--connections", "2", "--duration", "300ms", "--quiet"}));
        CHECK(r.code == 0);
        CHECK_THAT(r.err, Catch::Contains("warning: scenario downstream-100 wants a separate downstream") &&
                              Catch::Contains("calls itself"));
    }
}

TEST_CASE("bench-load prints a banner, and JSON with --format json", "[cli][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    auto r = run_tool(quick_load(server.port(), {"--connections", "2", "--duration", "300ms", "--trials", "2",
                                                 "--pause", "0s", "--format", "json"}));
    INFO(r.err << r.out_text());
    REQUIRE(r.code == 0);
    CHECK_THAT(r.err, Catch::Contains("ad-hoc: closed loop on 2 connections for 300ms") &&
                          Catch::Contains("2 trials") && Catch::Contains("server loop, pid ") &&
                          Catch::Contains("load CPUs "));
    REQUIRE(r.out.size() == 3);
    for (std::size_t i = 0; i < 2; ++i) {
        auto trial = nlohmann::json::parse(r.out[i]);
        CHECK(trial["type"] == "trial");
        CHECK(trial["trial"] == i + 1);
        CHECK(trial["metrics"]["requests_ok"].get<double>() > 0);
    }
    auto summary = nlohmann::json::parse(r.out[2]);
    CHECK(summary["type"] == "summary");
    CHECK(summary["shape"] == "closed");
    CHECK(summary["model"] == "loop");
    CHECK(summary["median"].contains("latency_millis_p999"));
    CHECK(summary["max"].contains("errors_connect_refused"));
    CHECK(summary["errors"].is_object());

    auto quiet = run_tool(quick_load(server.port(), {"--connections", "1", "--duration", "200ms", "--quiet"}));
    CHECK(quiet.code == 0);
    CHECK(quiet.err.find("closed loop") == std::string::npos);
}

TEST_CASE("SLO gates of bench-load: exit 3 naming the broken gate and the measured value",
          "[cli][load][slo][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    auto args = [&](const std::string& slo) {
        return quick_load(server.port(), {"--path", "/io?delayInMillis=20", "--connections", "2", "--duration", "300ms",
                                          "--quiet", "--slo", slo});
    };
    auto kept = run_tool(args("p99<5s,p95<5s,errors=0,unsent=0,rps>=1"));
    INFO(kept.err);
    CHECK(kept.code == 0);
    // Issue 23 F19: a passing gate says so, with what was measured; p95 (k6's default) is read from the histograms.
    CHECK_THAT(kept.err, Catch::Contains("bench-load: SLO met: p99<5s: measured ") &&
                             Catch::Contains("errors=0: measured 0"));
    // The measured figure is the 20 ms delay and what a busy machine adds to it: at least 20 ms, not a fixed digit.
    auto measured_ms = [](const std::string& text, const std::string& after) {
        auto at = text.find(after);
        return at == std::string::npos ? -1.0 : std::strtod(text.c_str() + at + after.size(), nullptr);
    };
    CHECK(measured_ms(kept.err, ", p95<5s: measured ") >= 20.0);
    auto broken = run_tool(args("errors=0,p50<1ms"));
    CHECK(broken.code == 3);
    CHECK_THAT(broken.err, Catch::Contains("SLO broken: p50<1ms: measured ") && Catch::Contains("ms (median)"));
    CHECK(measured_ms(broken.err, "SLO broken: p50<1ms: measured ") >= 20.0);
    CHECK(broken.err.find("errors=0") == std::string::npos);
    auto bad = run_tool(args("p98<1ms"));
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--slo: 'p98<1ms': unknown metric"));
}

TEST_CASE("bench-load takes wrk's, hey's and oha's spelling, and answers the rest with its own",
          "[cli][load][integration]")
{
    // Issue 23 §9: `bench-load -c 50 -d 5s URL` failed with CLI11's reversed "not expected" list.
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    const auto base = "http://127.0.0.1:" + std::to_string(server.port());
    {
        auto r = run_tool({bench_load_path(), "-c", "2", "-d", "500ms", "-t", "1", "-H", "X-Test: 1", "--warmup", "0s",
                           "--trials", "1", base + "/io?delayInMillis=1"});
        INFO(r.err << r.out_text());
        CHECK(r.code == 0);
        CHECK_THAT(r.err, Catch::Contains("/io?delayInMillis=1"));
        REQUIRE_FALSE(r.out.empty());
        CHECK_THAT(r.out.back(), Catch::Contains(" errors=0 "));
        auto z = run_tool({bench_load_path(), "-c2", "-z", "300ms", "--warmup", "0s", "--trials", "1", "--quiet",
                           base + "/io?delayInMillis=1"});
        CHECK(z.code == 0);
    }
    {
        INFO("another tool's flags get bench-load's spelling, in the order given");
        auto r = run_tool({bench_load_path(), "--no-tui", "-q", "10", "--conections", "5", base});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("bench-load: --no-tui is oha's") &&
                              Catch::Contains("; -q is hey's rate per worker (oha's total); bench-load takes the "
                                              "total: --rate N") &&
                              Catch::Contains("; --conections: unknown option; did you mean --connections?"));
        CHECK(r.err.find("unexpected argument '10'") == std::string::npos);  // the value of -q, not a stray word
        CHECK(r.err.find("--no-tui") < r.err.find("-q is"));
        auto both = run_tool({bench_load_path(), "--url", base, base});
        CHECK(both.code == 2);
        CHECK_THAT(both.err, Catch::Contains("excludes"));
    }
    {
        INFO("wrk's --latency runs with a note; hey's and oha's -d (a body) points to --body-file");
        auto latency = run_tool({bench_load_path(), "--latency", "-c", "1", "-d", "200ms", "--warmup", "0s", "--trials",
                                 "1", base + "/io?delayInMillis=1"});
        CHECK(latency.code == 0);
        CHECK_THAT(latency.err, Catch::Contains("--latency (wrk's) is always on here"));
        for (const auto& args : std::vector<std::vector<std::string>>{
                 {"-n", "10", "-c", "2", "-m", "POST", "-d", R"({"title":"x"})", base + "/movies"},
                 {"-m", "POST", "-d", R"({"title":"x"})", base + "/movies"}}) {
            auto argv = args;
            argv.insert(argv.begin(), bench_load_path());
            auto body = run_tool(argv);
            CHECK(body.code == 2);
            CHECK_THAT(body.err, Catch::Contains(R"(--duration: '{"title":"x"}' is not a duration)") &&
                                     Catch::Contains("--body-file FILE"));
        }
    }
    {
        INFO("/epoch-millis without delayInMillis: the banner names bench-server's default wait");
        auto typed = run_tool(
            {bench_load_path(), "-c", "1", "-d", "200ms", "--warmup", "0s", "--trials", "1", base + "/epoch-millis"});
        CHECK(typed.code == 0);
        CHECK_THAT(typed.err, Catch::Contains("/epoch-millis (bench-server waits 100 ms here unless ?delayInMillis="));
        auto zero = run_tool({bench_load_path(), "-c", "1", "-d", "200ms", "--warmup", "0s", "--trials", "1",
                              base + "/epoch-millis?delayInMillis=0"});
        CHECK(zero.code == 0);
        CHECK(zero.err.find("waits 100 ms") == std::string::npos);
    }
    {
        INFO("an explicit / is /, and a URL without a path says what it requests");
        auto root = run_tool({bench_load_path(), "--url", base + "/", "-d", "1s"});
        CHECK(root.code == 2);  // bench-server answers / with 404: the pre-flight request says so
        CHECK_THAT(root.err, Catch::Contains("GET " + base + "/: answered 404"));
        auto bare = run_tool({bench_load_path(), "--url", base, "-d", "200ms", "--warmup", "0s", "--trials", "1"});
        CHECK(bare.code == 0);
        CHECK_THAT(bare.err, Catch::Contains("no path in --url: requesting /epoch-millis") &&
                                 Catch::Contains("waits 100 ms"));
    }
    {
        INFO("an open loop its connections cannot carry is warned about, and BEHIND has exit status 4");
        auto r = run_tool({bench_load_path(), "-R", "400", "-c", "2", "-d", "1s", "--warmup", "0s", "--trials", "1",
                           base + "/io?delayInMillis=100"});
        INFO(r.err << r.out_text());
        CHECK(r.code == 4);
        // 400 req/s at >= 100 ms need >= 40 connections.
        CHECK_THAT(r.err, Catch::Contains("2 connection(s) cannot carry --rate 400 at the pre-flight latency of ") &&
                              Catch::Contains("raise --connections to "));
        REQUIRE_FALSE(r.out.empty());
        CHECK_THAT(r.out.back(), Catch::Contains("BEHIND(unsent)"));
        auto enough = run_tool({bench_load_path(), "-R", "20", "-c", "4", "-d", "500ms", "--warmup", "0s", "--trials",
                                "1", base + "/io?delayInMillis=100"});
        CHECK(enough.code == 0);
        CHECK(enough.err.find("cannot carry") == std::string::npos);
    }
    {
        INFO("a burst on fewer connections than requests is not 'all at once'");
        auto few = run_tool({bench_load_path(), "-n", "6", "-c", "3", "--warmup", "0s", "--trials", "1", "--quiet",
                             base + "/io?delayInMillis=1"});
        CHECK(few.code == 0);
        CHECK_THAT(few.err, Catch::Contains("6 requests on 3 connections, 3 at a time") &&
                                Catch::Contains("the wait for a free connection is not in it"));
        CHECK(few.err.find("all requests at once") == std::string::npos);
        auto all = run_tool({bench_load_path(), "-n", "3", "-c", "3", "--warmup", "0s", "--trials", "1", "--quiet",
                             base + "/io?delayInMillis=1"});
        CHECK_THAT(all.err, Catch::Contains("all requests at once"));
    }
}

TEST_CASE("bench-load's smaller papercuts: JSON counts are integers, a scenario name's start is offered",
          "[cli][load][integration]")
{
    // Issue 23 F19.
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    server_process server({"--model=loop", "--threads", "1"});
    const auto base = "http://127.0.0.1:" + std::to_string(server.port());
    {
        INFO("JSON counts are integers, other figures rounded");
        auto r = run_tool({bench_load_path(), "-c", "2", "-d", "300ms", "--warmup", "0s", "--trials", "1", "--quiet",
                           "--format", "json", base + "/io?delayInMillis=1"});
        REQUIRE(r.code == 0);
        REQUIRE_FALSE(r.out.empty());
        auto summary = nlohmann::json::parse(r.out.back());
        INFO("the endpoint is in the record, not only the base URL (user review 2026-12-03)");
        REQUIRE(summary["mix"].size() == 1);
        CHECK(summary["mix"][0]["method"] == "GET");
        CHECK(summary["mix"][0]["path"] == "/io?delayInMillis=1");
        CHECK(summary["mix"][0]["weight"] == 1);
        CHECK(summary["median"]["requests_total"].is_number_integer());
        CHECK(summary["median"]["requests_error"].is_number_integer());
        auto wall = summary["median"]["wall_millis"].get<double>();
        CHECK(std::abs(wall * 1000 - std::round(wall * 1000)) < 1e-6);
    }
    {
        INFO("a scenario name's start lists the scenarios it begins");
        auto r = run_tool({bench_load_path(), "--scenario", "smoke", "--scenarios-dir", scenarios_dir()});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("did you mean one of: ") && Catch::Contains("smoketest") &&
                              Catch::Contains("smoke-burst-io"));
    }
    {
        INFO("a zero duration is not 'missing'");
        auto r = run_tool({bench_load_path(), "--url", base, "--duration", "0s"});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("bench-load: --duration: 0s is not a duration greater than 0"));
    }
    if (!bench_report_path().empty()) {
        INFO("bench-report merge names itself once");
        auto r = run_tool({bench_report_path(), "merge", "x.hlog", "--from", "5", "--to", "1"});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("bench-report merge: --to must be after --from"));
    }
}

TEST_CASE("bench-server suggests the option meant and names the CPUs it may use", "[cli][server]")
{
    if (bench_server_path().empty())
        return;
    auto typo = run_tool({bench_server_path(), "--modle=fiber"});
    CHECK(typo.code == 2);
    CHECK_THAT(typo.err, Catch::Contains("--modle: unknown option; did you mean --model?"));
    auto cpus = run_tool({bench_server_path(), "--cpus", "1000", "--port", "0"});
    CHECK(cpus.code != 0);
    CHECK_THAT(cpus.err, Catch::Contains("this process may use CPUs "));
}

TEST_CASE("bench-server --backlog sets the listen backlog the kernel keeps", "[cli][server]")
{
    if (bench_server_path().empty())
        return;
    auto bad = run_tool({bench_server_path(), "--backlog", "0", "--port", "0"});
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--backlog: 0 is not a backlog"));
    server_process server({"--backlog", "7"});
    // For a listening socket, ss shows the backlog as its Send-Q.
    auto ss = run_tool({"/bin/sh", "-c", "ss -Hltn 'sport = :" + std::to_string(server.port()) + "'"});
    if (ss.code != 0 || ss.out.empty())
        return;  // no ss on this machine
    CHECK_THAT(ss.out.front(), Catch::Matches("LISTEN +0 +7 .*"));
}

TEST_CASE("bench-server --tls names the certificate or key it cannot use, exit 2", "[cli][server]")
{
    if (bench_server_path().empty())
        return;
    temp_dir dir("execbench-tls-cli");
    const auto cert = (dir.path / "cert.pem").string();
    const auto key = (dir.path / "key.pem").string();
    const auto other_key = (dir.path / "other.pem").string();
    auto made = run_tool({"/bin/sh", "-c",
                          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=x "
                          "-keyout " + key + " -out " + cert + " && openssl genpkey -algorithm EC -pkeyopt "
                          "ec_paramgen_curve:P-256 -out " + other_key});
    if (made.code != 0)
        return;  // no openssl command on this machine
    auto serve = [](std::vector<std::string> args) {
        args.insert(args.begin(), {bench_server_path(), "--port", "0"});
        return run_tool(args);
    };
    auto missing = serve({"--tls", "--tls-cert", (dir.path / "none.pem").string(), "--tls-key", key});
    CHECK(missing.code == 2);
    CHECK_THAT(missing.err, Catch::Contains("--tls-cert: cannot read '" + (dir.path / "none.pem").string() + "'"));
    auto not_a_cert = serve({"--tls", "--tls-cert", key, "--tls-key", key});
    CHECK(not_a_cert.code == 2);
    CHECK_THAT(not_a_cert.err, Catch::Contains("--tls-cert: '" + key + "' is not a PEM certificate"));
    auto mismatched = serve({"--tls", "--tls-cert", cert, "--tls-key", other_key});
    CHECK(mismatched.code == 2);
    CHECK_THAT(mismatched.err,
               Catch::Contains("--tls-key: '" + other_key + "' does not match the certificate in '" + cert + "'"));
    auto without_tls = serve({"--tls-cert", cert, "--tls-key", key});
    CHECK(without_tls.code == 2);
    CHECK_THAT(without_tls.err, Catch::Contains("--tls-cert requires --tls"));
    auto without_key = serve({"--tls", "--tls-cert", cert});
    CHECK(without_key.code == 2);
    CHECK_THAT(without_key.err, Catch::Contains("--tls-cert requires --tls-key"));
    auto bad_type = serve({"--tls", "--tls-key-type", "dsa"});
    CHECK(bad_type.code == 2);
    CHECK_THAT(bad_type.err, Catch::Contains("--tls-key-type"));
}

TEST_CASE("bench-load lists scenarios in the studies' order and lints them", "[cli][load][integration]")
{
    if (bench_load_path().empty())
        return;
    auto r = run_tool({bench_load_path(), "--list-scenarios", "--scenarios-dir", scenarios_dir()});
    REQUIRE(r.code == 0);
    auto at = [&](const std::string& name) {
        for (std::size_t i = 0; i < r.out.size(); ++i)
            if (r.out[i].rfind(name + " ", 0) == 0)
                return i;
        return r.out.size();
    };
    CHECK(at("io-600") < at("downstream-100"));
    CHECK(at("downstream-3000") < at("smoketest"));
    CHECK(at("1k-vus-and-rps-get-time-no-delay") < at("5k-vus-and-rps-get-time"));
    CHECK(at("5k-vus-and-rps-get-time") < at("10k-vus-and-rps-get-movies"));
    CHECK(at("10k-vus-and-rps-get-movies") < at("20k-vus-smooth-spike-get-movies"));
    CHECK(at("20k-vus-smooth-spike-get-movies") < r.out.size());
    CHECK_THAT(r.out.front(), Catch::Contains("shape") && Catch::Contains("duration") && Catch::Contains("rate"));
    CHECK_THAT(r.out[at("io-600")], Catch::Contains("burst") && Catch::Contains("600 req"));

    temp_dir dir("execbench-cli");
    std::filesystem::copy_file(scenarios_dir() + "/io-600.json", dir.path / "io-600.json");
    std::ofstream(dir.path / "broken.json") << R"({"description": "d", "requests": [], "load": {}})";
    auto lint = run_tool({bench_load_path(), "--list-scenarios", "--scenarios-dir", dir.path.string()});
    CHECK(lint.code == 1);
    CHECK_THAT(lint.out_text(), Catch::Contains("INVALID"));

    auto suites = run_tool({bench_load_path(), "--list-suites", "--scenarios-dir", scenarios_dir()});
    CHECK(suites.code == 0);
    REQUIRE_FALSE(suites.out.empty());
    CHECK_THAT(suites.out.front(), Catch::StartsWith("reactive") && Catch::Contains("io-600"));

    auto typo = run_tool({bench_load_path(), "--scenario", "io-60", "--scenarios-dir", scenarios_dir()});
    CHECK(typo.code == 2);
    CHECK_THAT(typo.err, Catch::Contains("did you mean io-600?"));
}

TEST_CASE("bench-server --host localhost listens on loopback and --list-endpoints lists", "[cli][server]")
{
    if (bench_server_path().empty())
        return;
    server_process server({"--host", "localhost"});
    CHECK_THAT(server.start_line(), Catch::Contains("address=127.0.0.1"));
    auto endpoints = run_tool({bench_server_path(), "--list-endpoints"});
    CHECK(endpoints.code == 0);
    CHECK_THAT(endpoints.out_text(),
               Catch::Contains("/io") && Catch::Contains("default delay 300 ms") && Catch::Contains("GET, HEAD, POST"));
    auto bad = run_tool({bench_server_path(), "--host", "no-such-host.invalid", "--port", "0"});
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--host: 'no-such-host.invalid' is not an IP address or localhost"));
}

TEST_CASE("all four binaries report command-line mistakes the same way", "[cli]")
{
    const std::vector<std::string> programs{bench_server_path(), bench_load_path(), bench_suite_path(),
                                            bench_report_path()};
    for (const auto& path : programs) {
        if (path.empty())
            continue;
        auto name = std::filesystem::path(path).filename().string();
        INFO(name);
        auto r = run_tool({path, "--bogus"});
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::StartsWith(name + ": ") && Catch::Contains("--bogus") &&
                              Catch::EndsWith("Run with --help for the options.\n"));
    }
    if (!bench_server_path().empty()) {
        auto port = run_tool({bench_server_path(), "--port", "99999"});
        CHECK(port.code == 2);
        CHECK_THAT(port.err, Catch::StartsWith("bench-server: --port: 99999 is not a port (0..65535)\n"));
        auto idle = run_tool({bench_server_path(), "--idle-timeout", "5x"});
        CHECK(idle.code == 2);
        CHECK_THAT(idle.err, Catch::StartsWith("bench-server: --idle-timeout: 5x is not a time of 0.001..3600 seconds"));
    }
    if (!bench_load_path().empty()) {
        auto trials = run_tool({bench_load_path(), "--trials", "-1"});
        CHECK(trials.code == 2);
        CHECK_THAT(trials.err, Catch::StartsWith("bench-load: --trials: -1 is not a number of trials (1..1000)"));
        auto open = run_tool({bench_load_path(), "--shape", "open", "--url", "http://127.0.0.1:1"});
        CHECK(open.code == 2);
        CHECK_THAT(open.err, Catch::StartsWith("bench-load: --rate: missing"));
    }
}

TEST_CASE("bench-server takes its timeouts in seconds or with a unit, as bench-load takes durations", "[cli]")
{
    if (bench_server_path().empty())
        return;
    server_process server({"--model", "loop", "--idle-timeout", "500ms", "--header-timeout", "2", "--shutdown-timeout",
                           "1m", "--write-timeout", "1.5"});
    raw_client client(server.port());
    auto health = nlohmann::json::parse(client.get("/health").body);
    CHECK(health["idleTimeoutMs"] == 500);
    CHECK(health["writeTimeoutMs"] == 1500);
    CHECK(health["headerTimeoutMs"] == 2000);
    CHECK(health["shutdownTimeoutMs"] == 60000);
}
