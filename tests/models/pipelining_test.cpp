// HTTP/1.1 pipelining (RFC 9112 §9.3.2): a client may send requests without waiting for answers, and the server
// answers them in the order they came. bench-load's --pipeline relies on it under every model.
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace execbench::test_support;

// Sixteen requests (TechEmpower's plaintext depth) whose answers differ and do not depend on the time, except for
// the Date header. The first waits longest, and offloaded and inline work alternate, so a model that wrote each
// answer when it was ready instead of in turn would reorder them.
std::vector<std::string> pipelined_targets()
{
    const std::vector<std::string> some = {"/io?delayInMillis=80",
                                           "/cpu?iterations=20000",
                                           "/io?delayInMillis=0",
                                           "/cpu-offloaded?iterations=3",
                                           "/cpu?iterations=1",
                                           "/io?delayInMillis=30",
                                           "/cpu-offloaded?iterations=20000",
                                           "/io?delayInMillis=1"};
    auto all = some;
    all.insert(all.end(), some.rbegin(), some.rend());
    return all;
}

std::string get_request(const std::string& target)
{
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

// The bytes of `response` with the Date header's value blanked: a second may pass between two answers.
std::string without_date(std::string response)
{
    constexpr std::string_view name = "\r\nDate: ";
    if (auto at = response.find(name); at != std::string::npos) {
        auto from = at + name.size();
        auto to = response.find("\r\n", from);
        response.replace(from, to - from, std::string(to - from, '#'));
    }
    return response;
}

// Each request alone on one keep-alive connection, its answer read before the next goes: what the pipelined
// answers must equal.
std::vector<std::string> answered_one_at_a_time(std::uint16_t port, const std::vector<std::string>& targets)
{
    raw_client client(port);
    std::vector<std::string> out;
    for (const auto& t : targets) {
        client.send(get_request(t));
        out.push_back(without_date(client.read_response_bytes()));
    }
    return out;
}

}  // namespace

TEMPLATE_TEST_CASE("pipelined requests are answered in order, byte by byte", "[pipelining]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    auto targets = pipelined_targets();
    auto expected = answered_one_at_a_time(server.port(), targets);
    std::string pipeline;
    for (const auto& t : targets)
        pipeline += get_request(t);

    raw_client client(server.port());
    // The answers on the wire equal those given one at a time, in the requests' order; the connection stays usable.
    auto check_answers = [&] {
        for (std::size_t i = 0; i < targets.size(); ++i) {
            INFO("answer " << i << " of " << targets.size() << ", to " << targets[i]);
            CHECK(without_date(client.read_response_bytes()) == expected[i]);
        }
        CHECK(client.get("/io?delayInMillis=0").status == 200);
    };
    SECTION("all sixteen in one write")
    {
        client.send(pipeline);
        check_answers();
    }
    SECTION("a byte at a time, so requests straddle the server's reads")
    {
        for (char c : pipeline)
            client.send(std::string_view(&c, 1));
        check_answers();
    }
}

// Answers that are ready at once may leave together (docs/models.md, "Pipelined answers"), but an answer is never
// held behind a later request's wait, and the answers to a pipeline's complete requests are written even when the
// rest of it never comes.
TEMPLATE_TEST_CASE("pipelined answers wait for no later request's wait", "[pipelining]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());
    SECTION("three ready answers come before a slow fourth")
    {
        constexpr auto slow = std::chrono::milliseconds(2000);
        const auto sent = std::chrono::steady_clock::now();
        client.send(get_request("/io?delayInMillis=0") + get_request("/cpu?iterations=1") +
                    get_request("/io?delayInMillis=0") +
                    get_request("/io?delayInMillis=" + std::to_string(slow.count())) +
                    get_request("/io?delayInMillis=0"));
        for (int i = 0; i < 3; ++i)
            CHECK(client.read_response().status == 200);
        // Three answers of no wait take microseconds; the bound is only far below the slow answer's 2 s.
        CHECK(std::chrono::steady_clock::now() - sent < slow * 3 / 4);
        CHECK(client.read_response().status == 200);
        CHECK(client.read_response().status == 200);
    }
    SECTION("a client that stops mid-pipeline still hears what it asked")
    {
        client.send(get_request("/io?delayInMillis=0") + get_request("/io?delayInMillis=0") +
                    get_request("/io?delayInMillis=0") + "GET /io?delayIn");
        client.shutdown_send();
        auto bytes = client.read_until_close();
        std::size_t answers = 0;
        for (auto at = bytes.find("HTTP/1.1 200 "); at != std::string::npos; at = bytes.find("HTTP/1.1 200 ", at + 1))
            ++answers;
        CHECK(answers == 3);
    }
}
