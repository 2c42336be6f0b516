#include "execbench/stats/sampler.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include <unistd.h>

using namespace std::chrono_literals;
using execbench::stats::cpu_percent_between;
using execbench::stats::parse_process_metrics;
using execbench::stats::periodic_sampler;
using execbench::stats::proc_source;
using execbench::stats::process_sample;
using execbench::stats::process_summary;
using execbench::stats::rate_start;
using execbench::stats::sample_process;
using execbench::stats::summarize_readings;
using execbench::stats::timed_sample;

namespace {

/// A thread that busy-spins until told to stop.
class spinner {
public:
    spinner()
        : thread_([this] {
              while (!stop_.load(std::memory_order_relaxed)) {
              }
          })
    {
    }
    ~spinner()
    {
        stop_ = true;
        thread_.join();
    }
    spinner(const spinner&) = delete;
    spinner& operator=(const spinner&) = delete;

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

/// Readings of a process that used `cpu[i]` seconds by `millis[i]` ms after a fixed start.
std::vector<timed_sample> readings_at(const std::vector<int>& millis, const std::vector<double>& cpu)
{
    std::vector<timed_sample> out;
    auto start = std::chrono::steady_clock::time_point{} + 1h;
    for (std::size_t i = 0; i < millis.size(); ++i) {
        process_sample s;
        s.cpu_seconds = cpu[i];
        s.resident_bytes = 1024 * 1024 * (i + 1);
        s.threads = static_cast<std::uint32_t>(i + 1);
        out.push_back({start + std::chrono::milliseconds{millis[i]}, s});
    }
    return out;
}

}  // namespace

TEST_CASE("rate_start measures a short last interval with the one before it", "[stats]")
{
    // Three full 100 ms periods, then the 2 ms cut by stop() in which one 10 ms clock tick landed.
    auto r = readings_at({0, 100, 200, 300, 302}, {0, 0.05, 0.10, 0.15, 0.16});
    CHECK(rate_start(r, 0, 100ms) == std::nullopt);
    CHECK(rate_start(r, 1, 100ms) == 0u);
    CHECK(rate_start(r, 3, 100ms) == 2u);
    // The last interval is too short to stand alone: it starts a period earlier.
    CHECK(rate_start(r, 4, 100ms) == 2u);
    CHECK(rate_start(r, 5, 100ms) == std::nullopt);
    CHECK(cpu_percent_between(r[2], r[4]) == Approx(100.0 * 0.06 / 0.102));

    auto summary = summarize_readings(r, 100ms);
    CHECK(summary.samples == 5);
    // Shorter than a second: the maximum is the average (alone, the last 2 ms would have read 500 %).
    CHECK(summary.cpu_percent_max == Approx(100.0 * 0.16 / 0.302));
    CHECK(summary.cpu_percent_avg == Approx(100.0 * 0.16 / 0.302));
    CHECK(summary.cpu_seconds == Approx(0.16));
    CHECK(summary.resident_mb_max == Approx(5));
    CHECK(summary.resident_mb_avg == Approx(3));
    CHECK(summary.threads_max == 5);
}

TEST_CASE("the CPU maximum is the busiest second, not the busiest 100 ms", "[stats]")
{
    // 100 ms readings over 3 s at 40 % of a core, but in the second second at 80 %, its ticks bunched so that one
    // 100 ms period shows 150 %.
    std::vector<int> at;
    std::vector<double> cpu;
    double used = 0;
    for (int ms = 0; ms <= 3000; ms += 100) {
        at.push_back(ms);
        cpu.push_back(used);
        double step = ms >= 1000 && ms < 2000 ? 0.08 : 0.04;
        if (ms == 1400)
            step = 0.15;
        else if (ms == 1500)
            step = 0.01;
        used += step;
    }
    auto summary = summarize_readings(readings_at(at, cpu), 100ms);
    CHECK(summary.cpu_percent_max == Approx(80).margin(1));
    CHECK(summary.cpu_percent_max < 100);
}

TEST_CASE("summarize_readings of a window shorter than half a period takes the average as the maximum", "[stats]")
{
    auto r = readings_at({0, 3}, {1.0, 1.01});
    auto summary = summarize_readings(r, 100ms);
    CHECK(summary.cpu_percent_avg == Approx(100.0 * 0.01 / 0.003));
    CHECK(summary.cpu_percent_max == Approx(summary.cpu_percent_avg));
    CHECK(summarize_readings({}, 100ms).samples == 0);
}

TEST_CASE("summarize_readings divides the RSS growth over the first reading by the sockets opened", "[stats]")
{
    // A server at 10 MiB with its listener, then 1,000 connections: its RSS peaks at 12 MiB while 800 are open and
    // 1,001 sockets is the most seen; the RSS falls back before the last reading.
    auto r = readings_at({0, 100, 200, 300}, {0, 0, 0, 0});
    const std::uint64_t mib = 1024 * 1024;
    for (auto [i, rss, sockets] : {std::tuple{0, 10 * mib, 1u}, {1, 12 * mib, 801u}, {2, 11 * mib, 1001u},
                                   {3, 10 * mib, 1u}}) {
        r[i].sample.resident_bytes = rss;
        r[i].sample.open_sockets = sockets;
    }
    CHECK(summarize_readings(r, 100ms).resident_bytes_per_socket == Approx(2.0 * mib / 1000));
    // No socket opened: no figure, rather than a growth divided by nothing.
    r[1].sample.open_sockets = r[2].sample.open_sockets = 1;
    CHECK(summarize_readings(r, 100ms).resident_bytes_per_socket == 0);
}

TEST_CASE("parse_process_metrics reads the process figures of a Prometheus exposition", "[stats]")
{
    auto s = parse_process_metrics("# HELP process_threads Threads in the process.\n"
                                   "# TYPE process_threads gauge\n"
                                   "execbench_requests_in_flight 3\n"
                                   "process_resident_memory_bytes 10485760\n"
                                   "process_cpu_seconds_total 1.25\n"
                                   "process_threads 7\n"
                                   "process_open_fds 40\n"
                                   "process_open_sockets 31\n"
                                   "process_context_switches_total{kind=\"voluntary\"} 1000\n"
                                   "process_context_switches_total{kind=\"involuntary\"} 20\n");
    REQUIRE(s.has_value());
    CHECK(s->resident_bytes == 10485760);
    CHECK(s->cpu_seconds == Approx(1.25));
    CHECK(s->threads == 7);
    CHECK(s->open_fds == 40);
    CHECK(s->open_sockets == 31);
    CHECK(s->voluntary_switches == 1000);
    CHECK(s->involuntary_switches == 20);

    // Another server's exposition without a socket count: its open fds stand in.
    auto other = parse_process_metrics("process_cpu_seconds_total 2e0\nprocess_open_fds 12\nprocess_threads NaN\n");
    REQUIRE(other.has_value());
    CHECK(other->cpu_seconds == Approx(2));
    CHECK(other->open_sockets == 12);
    CHECK(other->threads == 0);

    CHECK_FALSE(parse_process_metrics("execbench_requests_in_flight 3\n").has_value());
    CHECK_FALSE(parse_process_metrics("").has_value());
}

TEST_CASE("periodic_sampler of /proc measures busy threads", "[stats]")
{
    periodic_sampler sampler(proc_source(::getpid()), 50ms);
    process_summary summary;
    double cpu_before = 0;
    double cpu_after = 0;
    {
        // Two spinners on a two-core box: one alone gets too small a share when other builds compete for the CPU.
        spinner busy_a;
        spinner busy_b;
        auto before = sample_process();
        sampler.start();
        std::this_thread::sleep_for(300ms);
        summary = summarize_readings(sampler.stop(), sampler.period());
        auto after = sample_process();
        REQUIRE(before.ok());
        REQUIRE(after.ok());
        cpu_before = before->cpu_seconds;
        cpu_after = after->cpu_seconds;
    }
    INFO("samples " << summary.samples << ", cpu avg " << summary.cpu_percent_avg << " %, cpu max "
                    << summary.cpu_percent_max << " %, cpu " << summary.cpu_seconds << " s of "
                    << cpu_after - cpu_before << " s around the window");
    CHECK(summary.samples >= 2);
    // Two spinners measure near 200 % on an idle box; the bound only has to tell busy from idle (0 %), since a
    // loaded box (two parallel builds on two cores) has been seen to leave them under 20 % in the window.
    CHECK(summary.cpu_percent_avg > 5);
    CHECK(summary.cpu_percent_avg < 250);
    CHECK(summary.cpu_percent_max >= summary.cpu_percent_avg);
    // The window's CPU time sits inside what an independent reading around it saw.
    CHECK(summary.cpu_seconds > 0);
    CHECK(summary.cpu_seconds <= cpu_after - cpu_before + 1e-9);
    CHECK(summary.resident_mb_avg > 1);
    CHECK(summary.resident_mb_max >= summary.resident_mb_avg);
    CHECK(summary.threads_max >= 4);
}

TEST_CASE("a slow full reading does not inflate the CPU rate of the interval after it", "[stats]")
{
    // A source whose process uses exactly half a core, and whose full readings take 150 ms after reading the CPU
    // time (as walking 20,000 fds can): stamped after the walk, the interval after it would look 150 ms shorter, and
    // its rate 125 %.
    auto t0 = std::chrono::steady_clock::now();
    auto source = [t0](execbench::stats::sample_depth depth) -> std::optional<process_sample> {
        process_sample s;
        s.cpu_seconds = 0.5 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (depth == execbench::stats::sample_depth::full)
            std::this_thread::sleep_for(150ms);
        return s;
    };
    periodic_sampler sampler(source, 100ms, 300ms);
    sampler.start();
    std::this_thread::sleep_for(1500ms);
    auto summary = summarize_readings(sampler.stop(), sampler.period());
    INFO("cpu avg " << summary.cpu_percent_avg << " %, max " << summary.cpu_percent_max << " %");
    CHECK(summary.cpu_percent_avg == Approx(50).margin(10));
    // A rate spans half a period at least, so a thread preempted between the stamp and the reading errs by its delay
    // over 50 ms: the bound leaves room for that on a busy machine.
    CHECK(summary.cpu_percent_max < 90);
}

TEST_CASE("periodic_sampler stops promptly", "[stats]")
{
    periodic_sampler sampler(proc_source(0), 10s);
    auto started = std::chrono::steady_clock::now();
    sampler.start();
    auto readings = sampler.stop();
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    CHECK(readings.size() == 2);
    // A second stop without a start has nothing to report.
    CHECK(sampler.stop().empty());
}

TEST_CASE("periodic_sampler of a missing process is empty", "[stats]")
{
    periodic_sampler sampler(proc_source(1 << 30), 10ms);
    sampler.start();
    std::this_thread::sleep_for(30ms);
    auto readings = sampler.stop();
    CHECK(readings.empty());
    auto summary = summarize_readings(readings, sampler.period());
    CHECK(summary.samples == 0);
    CHECK(summary.cpu_percent_avg == 0);
}
