// The coroutine patterns the `coro` model relies on, held against the compiler: GCC 12.1 and 12.2 miscompile some
// coroutine code (temporaries living across a `co_await`, lambda coroutines' captures), so what src/models/coro.cpp
// does is checked here on its own, where a miscount points at the compiler and not at a server. So is the model's
// coroutine type (include/execbench/models/coro_task.hpp): results, interleaving and the destruction of an abandoned
// stack.
#include "execbench/models/coro_task.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace {

namespace asio = boost::asio;
using execbench::models::coro_start;
using executor_type = asio::io_context::executor_type;
template <class T = void>
using task = execbench::models::coro_task<T>;
constexpr auto use_values = asio::as_tuple(asio::deferred);  // as src/models/coro.cpp waits
using timer_type =
    asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, executor_type>;

/// Runs `start` on `io`'s thread, as the coro model starts its sessions (coro_start runs a task only there), then
/// runs `io` until no work is left.
template <class Start>
void on_its_thread(asio::io_context& io, Start start)
{
    asio::post(io, start);
    io.run();
}

/// Counts its constructions and destructions, so a double destruction or a leak shows as a difference.
struct counted {
    explicit counted(int& live) : live_(&live) { ++*live_; }
    counted(const counted& other) : live_(other.live_) { ++*live_; }
    counted& operator=(const counted&) = delete;
    ~counted() { --*live_; }
    int* live_;
};

/// Suspends once on a timer that has already expired, so the coroutine really goes through the io_context.
task<> suspend_once(asio::io_context& io)
{
    timer_type timer(io.get_executor(), std::chrono::steady_clock::duration::zero());
    co_await timer.async_wait(use_values);
}

task<std::string> echo_after_suspending(asio::io_context& io, const std::string& text)
{
    co_await suspend_once(io);
    co_return text;
}

task<> named_local_across_suspension(asio::io_context& io, int& live, int& seen)
{
    counted local(live);
    co_await suspend_once(io);
    seen = live;
}

/// Parks on a timer of its own, as a connection's coroutine parks on its own socket.
task<> parked_for_an_hour(asio::io_context& io, int& live)
{
    counted local(live);
    timer_type timer(io.get_executor(), std::chrono::hours(1));
    co_await timer.async_wait(use_values);
    ++live;  // never: the wait is abandoned, not completed
}

/// Parks one frame down, so abandoning the wait must destroy two frames, the bottom one last.
task<> parked_below(asio::io_context& io, int& live)
{
    counted local(live);
    co_await parked_for_an_hour(io, live);
}

task<std::optional<bool>> optional_result(asio::io_context& io, bool value)
{
    co_await suspend_once(io);
    co_return value;
}

task<> echo_into(asio::io_context& io, const std::string& text, std::string& out)
{
    out = co_await echo_after_suspending(io, text);
}

task<> count_result(asio::io_context& io, bool value, int& yes, int& no)
{
    auto result = co_await optional_result(io, value);
    if (result && *result)
        ++yes;
    else if (result)
        ++no;
}

}  // namespace

TEST_CASE("a coroutine's reference argument is the caller's object after a suspension", "[coro]")
{
    asio::io_context io;
    std::string caller = "the caller's text, longer than any small-string buffer";
    std::string got;
    on_its_thread(io, [&] { coro_start(io, echo_into(io, caller, got)); });
    CHECK(got == caller);
}

TEST_CASE("a named local with a destructor lives across co_await and is destroyed once", "[coro]")
{
    int live = 0;
    int seen = -1;
    {
        asio::io_context io;
        on_its_thread(io, [&] { coro_start(io, named_local_across_suspension(io, live, seen)); });
    }
    CHECK(seen == 1);
    CHECK(live == 0);
}

TEST_CASE("a coroutine suspended when its io_context is destroyed is destroyed with it", "[coro]")
{
    // The coro model's shutdown path: bench-server stops its io_contexts with coroutines parked on sockets and
    // timers; destroying the contexts must destroy each frame, and its locals, exactly once.
    int live = 0;
    {
        asio::io_context io;
        asio::post(io, [&] {
            for (int i = 0; i < 3; ++i)
                coro_start(io, parked_for_an_hour(io, live));
            coro_start(io, parked_below(io, live));
        });
        io.run_for(std::chrono::milliseconds(20));
        CHECK(live == 5);
        io.stop();
    }
    CHECK(live == 0);
}

TEST_CASE("a co_await result is read from a named variable, not a temporary in a condition", "[coro]")
{
    asio::io_context io;
    int true_count = 0;
    int false_count = 0;
    on_its_thread(io, [&] {
        for (bool value : {true, false, true})
            coro_start(io, count_result(io, value, true_count, false_count));
    });
    CHECK(true_count == 2);
    CHECK(false_count == 1);
}

namespace {

task<> posted_rounds(asio::io_context& io, int rounds, int& done)
{
    for (int i = 0; i < rounds; ++i)
        co_await asio::post(io, asio::deferred);
    ++done;
}

}  // namespace

TEST_CASE("started coroutines interleave through their io_context and each ends once", "[coro]")
{
    asio::io_context io;
    int done = 0;
    asio::post(io, [&] {
        for (int i = 0; i < 100; ++i)
            coro_start(io, posted_rounds(io, 1000, done));
        CHECK(done == 0);  // each ran to its first wait, a post, and the others' turns come after
    });
    io.run();
    CHECK(done == 100);
}
