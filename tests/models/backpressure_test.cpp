// /stream is demand-driven under every model: a client that stops reading stops production.
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace {

using namespace execbench;
using namespace execbench::test_support;

constexpr std::uint64_t total_events = 100'000;
constexpr std::size_t event_bytes = 1024;

// Checks decoded /stream bytes as they arrive: every event is "data: event-<i>" padded to event_bytes, with i
// counting up from 0 without a gap.
class event_checker {
public:
    /// Consumes `data`; returns false (and remembers why) at the first event out of order or malformed.
    bool consume(std::string_view data)
    {
        pending_.append(data);
        std::size_t at = 0;
        for (;;) {
            auto end = pending_.find("\n\n", at);
            if (end == std::string::npos)
                break;
            std::string_view event(pending_.data() + at, end + 2 - at);
            if (!check(event))
                return false;
            at = end + 2;
        }
        pending_.erase(0, at);
        return true;
    }

    [[nodiscard]] std::uint64_t events() const noexcept { return next_; }
    [[nodiscard]] const std::string& problem() const noexcept { return problem_; }
    [[nodiscard]] bool complete() const noexcept { return pending_.empty(); }

private:
    bool check(std::string_view event)
    {
        const std::string expected_prefix = "data: event-" + std::to_string(next_);
        if (event.size() != event_bytes || event.substr(0, expected_prefix.size()) != expected_prefix ||
            (event[expected_prefix.size()] != '.' && event[expected_prefix.size()] != '\n')) {
            problem_ = "expected event " + std::to_string(next_) + " of " + std::to_string(event_bytes) +
                       " bytes, got " + std::to_string(event.size()) + " bytes: '" + std::string(event.substr(0, 40)) +
                       "'";
            return false;
        }
        ++next_;
        return true;
    }

    std::string pending_;
    std::uint64_t next_ = 0;
    std::string problem_;
};

}  // namespace

TEMPLATE_TEST_CASE("a stream whose client stops reading stops producing, then resumes in order", "[backpressure]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    // A small receive window makes the socket buffers fill after a few events rather than a few thousand.
    raw_client client(server.port(), client_options{8 * 1024});
    client.send_get("/stream?count=" + std::to_string(total_events) + "&eventBytes=" + std::to_string(event_bytes));
    auto head = client.read_head();
    REQUIRE(head.status == 200);
    REQUIRE(head.chunked);

    event_checker checker;
    std::string data;
    while (checker.events() < 3) {
        data.clear();
        REQUIRE(client.read_body_some(data));
        REQUIRE(checker.consume(data));
    }

    // Pause: once the socket buffers are full the server must wait for us. First the counter settles (it
    // stands still for 200 ms; a busy machine may need a while to fill the buffers), then it stays put.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    auto produced_early = server.counters().events_produced();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        auto now_produced = server.counters().events_produced();
        if (now_produced == produced_early || std::chrono::steady_clock::now() >= deadline)
            break;
        produced_early = now_produced;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    const auto produced_late = server.counters().events_produced();
    INFO("produced when settled: " << produced_early << ", 0.8 s later: " << produced_late);
    // Only what the socket buffers hold may have been produced: a few thousand events, not the 100000.
    CHECK(produced_late < 20'000);
    CHECK(produced_late == produced_early);

    // Resume: everything arrives, in order.
    bool more = true;
    while (more) {
        data.clear();
        more = client.read_body_some(data);
        if (!checker.consume(data)) {
            FAIL(checker.problem());
        }
    }
    CHECK(checker.events() == total_events);
    CHECK(checker.complete());
    CHECK(server.counters().events_produced() == total_events);
    // The connection is kept alive after the stream.
    CHECK(client.get("/health").status == 200);
}
