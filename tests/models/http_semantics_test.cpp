// What clients other than our generator send, answered alike by every model: HTTP/1.0 keep-alive (ab -k), HEAD,
// Expect: 100-continue (curl, for larger bodies) and a stream to an HTTP/1.0 client. wrk and bench-load speak
// HTTP/1.1 keep-alive without Expect, so none of these paths is exercised by a benchmark run.
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using namespace execbench::test_support;

std::string movie_json()
{
    return nlohmann::json{{"title", "Heads"},
                          {"releaseYear", 2001},
                          {"genre", "DRAMA"},
                          {"rating", 7.5},
                          {"characters", nlohmann::json::array()},
                          {"directors", nlohmann::json::array({{{"firstName", "Ada"},
                                                                 {"lastName", "Continue"},
                                                                 {"birthday", "1970-01-31"}}})},
                          {"writers", nlohmann::json::array()},
                          {"awards", nlohmann::json::array()}}
        .dump();
}

std::string post_head(std::size_t length, std::string_view extra = {})
{
    std::string head = "POST /movies?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n";
    head.append("Content-Length: ").append(std::to_string(length)).append("\r\n");
    head.append(extra).append("\r\n");
    return head;
}

// The head of a raw answer, up to its blank line.
std::string head_of(const std::string& bytes)
{
    return bytes.substr(0, bytes.find("\r\n\r\n") + 4);
}

}  // namespace

TEMPLATE_TEST_CASE("HTTP/1.0 keep-alive is answered with Connection: keep-alive and persists", "[conformance]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());
    // ab -k sends exactly this; without the answer's Connection: keep-alive it waits for a close that never comes.
    for (int i = 0; i < 3; ++i) {
        client.send("GET /epoch-millis?delayInMillis=0 HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: a\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 200);
        CHECK(r.header("Connection") == "keep-alive");
        CHECK(r.has_header("Content-Length"));
    }
    CHECK_FALSE(client.wait_for_close(std::chrono::milliseconds(100)));
}

TEMPLATE_TEST_CASE("HEAD answers the GET's status and headers without a body", "[conformance]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    for (std::string target : {"/epoch-millis?delayInMillis=0", "/io?delayInMillis=0", "/cpu?iterations=1",
                               "/cpu-offloaded?iterations=1", "/health", "/metrics", "/movies?delayInMillis=0",
                               "/stream?count=3", "/nope"}) {
        INFO("HEAD " << target);
        std::string get_head;
        {
            raw_client client(server.port());
            client.send("GET " + target + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            get_head = head_of(client.read_until_close());
        }
        raw_client client(server.port());
        client.send("HEAD " + target + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        auto bytes = client.read_until_close(std::chrono::seconds(5));
        const auto head = head_of(bytes);
        CHECK(bytes.size() == head.size());  // no body at all, though the head may announce one
        CHECK(head.substr(0, head.find("\r\n")) == get_head.substr(0, get_head.find("\r\n")));
        for (std::string field : {"Content-Type: ", "Transfer-Encoding: ", "Cache-Control: "}) {
            auto at = get_head.find("\r\n" + field);
            auto value = at == std::string::npos ? std::string() : get_head.substr(at, get_head.find("\r\n", at + 2) - at);
            CHECK(head.find(value) != std::string::npos);
        }
        // /metrics and /health change between the two calls; the others have a length the GET's equals.
        if (target.find("/metrics") == std::string::npos && target.find("/health") == std::string::npos &&
            target.find("/epoch") == std::string::npos) {
            auto at = get_head.find("\r\nContent-Length: ");
            if (at != std::string::npos)
                CHECK(head.find(get_head.substr(at, get_head.find("\r\n", at + 2) - at)) != std::string::npos);
        }
    }
}

TEMPLATE_TEST_CASE("HEAD keeps the connection and the next request is read where the head ended", "[conformance]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());
    client.send("HEAD /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\nGET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n");
    client.send("GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    // Read as bytes: a HEAD answer's Content-Length is the GET's, so a response parser would take the next answer
    // for its body.
    const auto bytes = client.read_until_close();
    CHECK(bytes.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    auto second = bytes.find("HTTP/1.1 200 OK\r\n", 1);
    REQUIRE(second != std::string::npos);
    CHECK(bytes.find("\r\n\r\n") + 4 == second);  // the HEAD answer ended at its head
    CHECK(bytes.find("{\"waitedMillis\":0}HTTP/1.1 200 OK") != std::string::npos);
}

TEMPLATE_TEST_CASE("Expect: 100-continue gets 100 Continue before the body, or the final answer instead",
                   "[conformance]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());
    const auto body = movie_json();

    SECTION("a body that will be read is asked for")
    {
        client.send(post_head(body.size(), "Expect: 100-continue\r\n"));
        // The client waits for this before it sends its body: without it, curl waits a second per request.
        CHECK(client.read_response(std::chrono::seconds(5)).status == 100);
        client.send(body);
        auto r = client.read_response();
        CHECK(r.status == 201);
        CHECK(nlohmann::json::parse(r.body).at(0).at("title") == "Heads");
        // The connection goes on, and a request without Expect gets no interim answer.
        client.send(post_head(body.size()) + body);
        CHECK(client.read_response().status == 201);
    }

    SECTION("a body over the limit is refused without being asked for")
    {
        client.send(post_head(2 * 1024 * 1024, "Expect: 100-continue\r\n"));
        auto r = client.read_response();
        CHECK(r.status == 413);
        CHECK(client.wait_for_close());
    }

    SECTION("a body sent at once with Expect is served too")
    {
        client.send(post_head(body.size(), "Expect: 100-continue\r\n") + body);
        auto r = client.read_response();
        if (r.status == 100)
            r = client.read_response();
        CHECK(r.status == 201);
    }
}

TEMPLATE_TEST_CASE("a stream to an HTTP/1.0 client is not chunked and ends with the connection", "[conformance]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());
    client.send("GET /stream?count=3&eventBytes=16 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    auto bytes = client.read_until_close();
    const auto head = head_of(bytes);
    CHECK(head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(head.find("Transfer-Encoding") == std::string::npos);
    CHECK(head.find("\r\nConnection: close\r\n") != std::string::npos);
    CHECK(bytes.substr(head.size()) == "data: event-0.\n\ndata: event-1.\n\ndata: event-2.\n\n");
}
