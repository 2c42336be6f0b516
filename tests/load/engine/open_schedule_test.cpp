#include "execbench/load/engine/open_schedule.hpp"

#include <catch2/catch.hpp>

using execbench::load::open_schedule;
using namespace std::chrono_literals;

TEST_CASE("the open schedule: request i is due at t0 + i / rate, whatever has answered", "[load]")
{
    open_schedule s(100, 2s, 1, 1);  // 100 req/s for 2 s on one thread
    CHECK(s.rate() == 100);
    CHECK(s.cap() == 200);
    open_schedule::time_point t0{10s};
    s.start(t0);
    CHECK(s.intended(0) == t0);
    CHECK(s.intended(1) == t0 + 10ms);
    CHECK(s.intended(150) == t0 + 1500ms);
    CHECK(s.due(t0 - 1s) == 0);   // before the start nothing is due
    CHECK(s.due(t0) == 1);        // request 0 is due at the start itself
    CHECK(s.due(t0 + 9ms) == 1);
    CHECK(s.due(t0 + 10ms) == 2);
    CHECK(s.due(t0 + 995ms) == 100);
    CHECK(s.due(t0 + 1h) == 200);  // never beyond the duration's requests: a late wake-up sends no extra
}

TEST_CASE("the open schedule splits the rate between threads by their share of the connections", "[load]")
{
    // 1,000 req/s on 10 connections for 1 s, over three threads holding 4, 3 and 3 of them.
    open_schedule a(1000, 1s, 4, 10), b(1000, 1s, 3, 10), c(1000, 1s, 3, 10);
    CHECK(a.rate() == Approx(400));
    CHECK(b.rate() == Approx(300));
    CHECK(a.cap() + b.cap() + c.cap() == 1000);
    // The duration's requests round down: 0.5 req/s for 3 s sends one (due at 0 s; the next would be due at 2 s).
    open_schedule slow(0.5, 3s, 1, 1);
    CHECK(slow.cap() == 1);
    open_schedule::time_point t0{};
    slow.start(t0);
    CHECK(slow.intended(1) == t0 + 2s);
    // No connections: no rate and nothing due.
    open_schedule none(100, 1s, 0, 0);
    CHECK(none.cap() == 0);
    CHECK(none.due(t0 + 1s) == 0);
}

TEST_CASE("the open schedule's ticks are fixed from its start, whatever the moment of the wake-up", "[load][engine]")
{
    open_schedule s(20'000, 1s, 1, 1);
    auto t0 = std::chrono::steady_clock::time_point{} + 5s;
    s.start(t0);
    CHECK(s.tick_end(t0, 1ms) == t0 + 1ms);
    CHECK(s.tick_end(t0 + 999us, 1ms) == t0 + 1ms);
    CHECK(s.tick_end(t0 + 1ms, 1ms) == t0 + 2ms);  // a tick's end belongs to the next
    CHECK(s.tick_end(t0 + 1500us, 1ms) == t0 + 2ms);
    CHECK(s.tick_end(t0 - 3ms, 1ms) == t0 + 1ms);  // before the start: the first tick
    // Two wake-ups in one tick see the same requests due: the second finds nothing new to send.
    CHECK(s.due(s.tick_end(t0 + 100us, 1ms)) == s.due(s.tick_end(t0 + 900us, 1ms)));
    CHECK(s.due(s.tick_end(t0 + 100us, 1ms)) == 21);  // 0 to 20: the one due at the tick's end goes with it
}
