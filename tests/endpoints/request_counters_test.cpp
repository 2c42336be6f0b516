#include "execbench/endpoints/request_counters.hpp"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("request_counters::render writes the process figures the remote sampler reads back", "[endpoints]")
{
    execbench::stats::process_sample process;
    process.resident_bytes = 3 * 1024 * 1024;
    process.cpu_seconds = 4.5;
    process.threads = 6;
    process.open_fds = 9;
    process.open_sockets = 5;
    process.voluntary_switches = 700;
    process.involuntary_switches = 8;
    execbench::endpoints::request_counters counters;
    std::string text;
    counters.render(process, text);

    auto back = execbench::stats::parse_process_metrics(text);
    REQUIRE(back.has_value());
    CHECK(back->resident_bytes == process.resident_bytes);
    CHECK(back->cpu_seconds == Approx(process.cpu_seconds));
    CHECK(back->threads == process.threads);
    CHECK(back->open_fds == process.open_fds);
    CHECK(back->open_sockets == process.open_sockets);
    CHECK(back->voluntary_switches == process.voluntary_switches);
    CHECK(back->involuntary_switches == process.involuntary_switches);
}

TEST_CASE("request_counters::render writes the TLS handshakes, completed by kind and failed by reason", "[endpoints]")
{
    using execbench::endpoints::handshake_failure;
    execbench::endpoints::request_counters counters;
    counters.tls().handshake_completed(false);
    counters.tls().handshake_completed(false);
    counters.tls().handshake_completed(true);
    counters.tls().handshake_failed(handshake_failure::plain_http);
    counters.tls().handshake_failed(handshake_failure::abandoned);
    counters.tls().handshake_failed(handshake_failure::abandoned);
    CHECK(counters.tls().failed() == 3);

    std::string text;
    counters.render({}, text);
    CHECK(text.find("execbench_tls_handshakes_total{kind=\"full\"} 2\n") != std::string::npos);
    CHECK(text.find("execbench_tls_handshakes_total{kind=\"resumed\"} 1\n") != std::string::npos);
    CHECK(text.find("execbench_tls_handshakes_failed_total{reason=\"plain_http\"} 1\n") != std::string::npos);
    CHECK(text.find("execbench_tls_handshakes_failed_total{reason=\"tls_error\"} 0\n") != std::string::npos);
    CHECK(text.find("execbench_tls_handshakes_failed_total{reason=\"abandoned\"} 2\n") != std::string::npos);
}
