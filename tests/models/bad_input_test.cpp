// Malformed requests get their 4xx under every model, and other clients are served meanwhile and afterwards.
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

namespace {

using namespace execbench;
using namespace execbench::test_support;

struct bad_request {
    const char* what;
    std::string bytes;
    unsigned status;
    bool closes;  ///< the server must close the connection after answering (framing can no longer be trusted)
};

std::vector<bad_request> bad_requests()
{
    return {
        {"broken request line", "GET\r\nHost: a\r\n\r\n", 400, true},
        {"request line with spaces in the target", "GET /io ?x HTTP/1.1\r\nHost: a\r\n\r\n", 400, true},
        {"unknown HTTP version", "GET /io HTTP/1.7\r\nHost: a\r\n\r\n", 400, true},
        {"HTTP/2 preface with HTTP/2 off", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, true},
        {"header without colon", "GET /io HTTP/1.1\r\nHost: a\r\nX-A b\r\n\r\n", 400, true},
        {"NUL in a header value", std::string("GET /io HTTP/1.1\r\nHost: a\r\nX-A: b") + '\0' + "c\r\n\r\n", 400, true},
        {"header over 8 KiB", "GET /io HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(10'000, 'x') + "\r\n\r\n", 431,
         true},
        {"conflicting Content-Length",
         "POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
         "Content-Length: 3\r\n\r\n[]",
         400, true},
        {"Content-Length with Transfer-Encoding",
         "POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 7\r\n"
         "Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
         400, true},
        {"bad chunk size",
         "POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
         "zz\r\n[]\r\n0\r\n\r\n",
         400, true},
        {"chunk declared over 1 MiB",
         "POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
         "100001\r\n[",
         413, true},
        {"bad percent-encoding in the query", "GET /io?delayInMillis=%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
        {"percent-encoded invalid UTF-8 in a parameter", "GET /movies?directorLastName=%FF HTTP/1.1\r\nHost: a\r\n\r\n",
         400, false},
    };
}

}  // namespace

TEMPLATE_TEST_CASE("each malformed request gets its 4xx while other clients are served", "[bad-input]",
                   EXECBENCH_EVERY_MODEL)
{
    // One carrier or loop: a malformed request that stalled it would stall everyone.
    server_settings settings;
    settings.threads = TestType::value == models::model::pool ? 4 : 1;
    // HTTP/2 off, as --no-http2: the connection preface is then one more malformed HTTP/1.1 request (with HTTP/2 on
    // it is h2c, and a bad preface is answered GOAWAY: tests/http2).
    settings.http2 = false;
    test_server server(TestType::value, settings);
    raw_client bystander(server.port());

    for (const auto& bad : bad_requests()) {
        DYNAMIC_SECTION(bad.what)
        {
            // The bystander's request is in flight while the bad one is handled.
            bystander.send_get("/io?delayInMillis=100");

            raw_client attacker(server.port());
            attacker.send(bad.bytes);
            auto r = attacker.read_response();
            CHECK(r.status == bad.status);
            CHECK(r.has_header("Content-Length"));
            if (bad.closes) {
                CHECK_FALSE(r.keep_alive);
                CHECK(attacker.wait_for_close());
            } else {
                // The message was framed correctly, so the connection goes on.
                CHECK(r.keep_alive);
                CHECK(attacker.get("/io?delayInMillis=0").status == 200);
            }

            CHECK(bystander.read_response().status == 200);
            CHECK(bystander.get("/io?delayInMillis=0").status == 200);
            raw_client newcomer(server.port());
            CHECK(newcomer.get("/io?delayInMillis=0").status == 200);
        }
    }

    SECTION("a client that leaves in the middle of a head or a body costs nothing")
    {
        {
            raw_client quitter(server.port());
            quitter.send("GET /io HTTP/1.1\r\nHost: a\r\n");
        }
        {
            raw_client quitter(server.port());
            quitter.send("POST /movies HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                         "Content-Length: 100\r\n\r\n[");
            quitter.shutdown_send();
            // Nobody is left to answer once the body cannot complete: the server just closes.
            CHECK(quitter.wait_for_close());
        }
        CHECK(bystander.get("/io?delayInMillis=0").status == 200);
    }
}
