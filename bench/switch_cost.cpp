// switch-cost: what one wait-and-resume costs in each execution model, with no I/O in the way.
//
// A request that waits is parked and later resumed; this measures that round trip alone, as each model does it:
//   coro   a C++20 coroutine of the model's own type (coro_task) suspended on `co_await asio::post(...)` and resumed
//          by its io_context;
//   awaitable  the same with Asio's `awaitable` and `co_spawn`, the type Boost.Cobalt's figures compare;
//   fiber  a stackful fiber (`asio::spawn`) parked on `asio::post(..., yield)` and resumed by its io_context;
//   loop   a callback that posts its continuation to its io_context;
//   pool   a thread that blocks until another thread wakes it (a condition variable), as a worker waits on a future;
//   switch a bare Boost.Context fiber switch there and back, the floor under `fiber`.
// Each sample times `--rounds` round trips; the figure is the median of `--samples` samples with its 95 % bootstrap
// interval (stats::median_with_interval). Usage: switch-cost [--rounds N] [--samples N] [--cpus LIST]
#include "execbench/core/cpus.hpp"
#include "execbench/models/coro_task.hpp"
#include "execbench/stats/bootstrap.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/spawn.hpp>
#include <boost/context/fiber.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
using executor_type = asio::io_context::executor_type;
using clock_type = std::chrono::steady_clock;

execbench::models::coro_task<> coro_round_trips(asio::io_context& io, long rounds)
{
    for (long i = 0; i < rounds; ++i)
        co_await asio::post(io, asio::deferred);  // as src/models/coro.cpp waits
}

double coro_sample(long rounds)
{
    asio::io_context io(1);
    execbench::models::coro_start(io, coro_round_trips(io, rounds));
    const auto t0 = clock_type::now();
    io.run();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

asio::awaitable<void, executor_type> awaitable_round_trips(long rounds)
{
    for (long i = 0; i < rounds; ++i)
        co_await asio::post(co_await asio::this_coro::executor, asio::deferred);
}

double awaitable_sample(long rounds)
{
    asio::io_context io(1);
    asio::co_spawn(io.get_executor(), awaitable_round_trips(rounds), asio::detached);
    const auto t0 = clock_type::now();
    io.run();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

double fiber_sample(long rounds)
{
    asio::io_context io(1);
    asio::spawn(
        io.get_executor(),
        [rounds](const asio::basic_yield_context<executor_type>& yield) {
            for (long i = 0; i < rounds; ++i)
                asio::post(yield.get_executor(), yield);
        },
        asio::detached);
    const auto t0 = clock_type::now();
    io.run();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

/// A continuation that posts itself until its rounds are done: the loop's `do_x` → `on_x` through the io_context.
struct callback_chain {
    asio::io_context& io;
    long left;
    void operator()()
    {
        if (--left > 0)
            asio::post(io, callback_chain{io, left});
    }
};

double loop_sample(long rounds)
{
    asio::io_context io(1);
    asio::post(io, callback_chain{io, rounds + 1});
    const auto t0 = clock_type::now();
    io.run();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

/// Two threads taking turns: each blocks until the other hands it the turn. One round trip is one block-and-wake of
/// each thread, so a thread's wait-and-resume is half of it.
double pool_sample(long rounds)
{
    std::mutex mutex;
    std::condition_variable turned;
    long turn = 0;
    std::thread other([&] {
        std::unique_lock lock(mutex);
        for (long i = 0; i < rounds; ++i) {
            turned.wait(lock, [&] { return turn % 2 == 1; });
            ++turn;
            turned.notify_one();
        }
    });
    const auto t0 = clock_type::now();
    {
        std::unique_lock lock(mutex);
        for (long i = 0; i < rounds; ++i) {
            ++turn;
            turned.notify_one();
            turned.wait(lock, [&] { return turn % 2 == 0; });
        }
    }
    const auto took = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
    other.join();
    return took / 2;
}

double switch_sample(long rounds)
{
    namespace ctx = boost::context;
    ctx::fiber f{[](ctx::fiber&& back) {
        for (;;)
            back = std::move(back).resume();
        return std::move(back);
    }};
    const auto t0 = clock_type::now();
    for (long i = 0; i < rounds; ++i)
        f = std::move(f).resume();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

struct subject {
    std::string_view name;
    std::string_view what;
    std::function<double(long)> sample;  // nanoseconds for `rounds` round trips
};

long number_after(int& i, int argc, char** argv)
{
    if (i + 1 >= argc) {
        std::fprintf(stderr, "switch-cost: %s needs a value\n", argv[i]);
        std::exit(2);
    }
    char* end = nullptr;
    const long v = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || v < 1) {
        std::fprintf(stderr, "switch-cost: %s: '%s' is not a positive whole number\n", argv[i - 1], argv[i]);
        std::exit(2);
    }
    return v;
}

}  // namespace

int main(int argc, char** argv)
{
    long rounds = 200'000;
    long samples = 15;
    std::string cpus;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--rounds") {
            rounds = number_after(i, argc, argv);
        } else if (arg == "--samples") {
            samples = number_after(i, argc, argv);
        } else if (arg == "--cpus" && i + 1 < argc) {
            cpus = argv[++i];
        } else {
            std::fprintf(stderr, "usage: switch-cost [--rounds N] [--samples N] [--cpus LIST]\n");
            return 2;
        }
    }
    if (!cpus.empty()) {
        auto list = execbench::parse_cpu_list(cpus);
        auto pinned = list ? execbench::pin_process(*list) : execbench::result<void>(list.err());
        if (!pinned) {
            std::fprintf(stderr, "switch-cost: --cpus: %s\n", pinned.err().message.c_str());
            return 2;
        }
    }
    const std::vector<subject> subjects{
        {"coro", "co_await post: suspend, queue, resume through the io_context", coro_sample},
        {"awaitable", "the same with Asio's awaitable and co_spawn", awaitable_sample},
        {"fiber", "post(yield): park, queue, resume through the io_context", fiber_sample},
        {"loop", "post(callback): queue the continuation, run it", loop_sample},
        {"pool", "a thread blocks on a condition variable, another wakes it", pool_sample},
        {"switch", "Boost.Context fiber resume there and back, no scheduler", switch_sample},
    };
    std::printf("switch-cost: %ld round trips per sample, %ld samples, interleaved; ns per wait-and-resume, median "
                "(95 %% bootstrap interval)\n",
                rounds, samples);
    std::vector<std::vector<double>> per_round(subjects.size());
    // Interleaved, so a slow moment of the machine falls on every subject alike.
    for (long s = 0; s < samples; ++s)
        for (std::size_t k = 0; k < subjects.size(); ++k)
            per_round[k].push_back(subjects[k].sample(rounds) / static_cast<double>(rounds));
    for (std::size_t k = 0; k < subjects.size(); ++k) {
        const auto m = execbench::stats::median_with_interval(per_round[k]);
        std::printf("  %-9.*s %8.1f ns (%.1f-%.1f)  %.*s\n", static_cast<int>(subjects[k].name.size()),
                    subjects[k].name.data(), m.median, m.low, m.high, static_cast<int>(subjects[k].what.size()),
                    subjects[k].what.data());
    }
    return 0;
}
