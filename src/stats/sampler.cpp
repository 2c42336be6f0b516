#include "execbench/stats/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace execbench::stats {

namespace {

using clock = std::chrono::steady_clock;

/// CPU time of the calling thread.
double thread_cpu_seconds() noexcept
{
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

}  // namespace

sample_source proc_source(pid_t pid)
{
    bool self = pid == 0 || pid == ::getpid();
    std::optional<process_sample> last_full;
    // Another process is read with its descendants: a master process's figures alone read 0 % CPU while its workers
    // serve. The tree is walked again at each full reading; in between, the same processes are read.
    std::vector<pid_t> tree;
    return [pid, self, last_full, tree](sample_depth depth) mutable -> std::optional<process_sample> {
        if (!self && (depth == sample_depth::full || tree.empty()))
            tree = process_tree(pid);
        auto s = sample_process(pid, depth);
        if (!s)
            return std::nullopt;
        // A worker that ended between the walk and this reading is skipped.
        for (std::size_t i = 1; i < tree.size(); ++i)
            if (auto child = sample_process(tree[i], depth))
                add_sample(*s, *child);
        if (s->walked) {
            last_full = *s;
        } else if (last_full) {
            auto others = last_full->open_fds - std::min(last_full->open_fds, last_full->open_sockets);
            s->open_sockets = s->open_fds - std::min(s->open_fds, others);
            if (!self) {
                s->voluntary_switches = last_full->voluntary_switches;
                s->involuntary_switches = last_full->involuntary_switches;
            }
        }
        return *s;
    };
}

struct periodic_sampler::impl {
    sample_source source;
    std::chrono::milliseconds period{};
    std::chrono::milliseconds full_period{};
    clock::time_point last_full{};
    std::atomic<double> cpu_seconds{0};
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
    bool started = false;
    std::vector<timed_sample> readings;  // guarded by mutex while the thread runs

    void take(sample_depth depth)
    {
        auto before = clock::now();
        if (depth == sample_depth::cheap && before - last_full >= full_period)
            depth = sample_depth::full;
        auto cpu_before = thread_cpu_seconds();
        // The reading is stamped with its start: a source reads the process's CPU time first, and a full reading's
        // walk of the fd table after it (tens of ms at 20,000 sockets) would otherwise shorten the next interval and
        // inflate the CPU rate over it beyond what one core can do.
        auto at = before;
        auto s = source(depth);
        cpu_seconds.store(cpu_seconds.load(std::memory_order_relaxed) + thread_cpu_seconds() - cpu_before,
                          std::memory_order_relaxed);
        if (depth == sample_depth::full)
            last_full = before;
        if (!s)
            return;
        std::lock_guard lock(mutex);
        readings.push_back({at, *s});
    }

    void run()
    {
        auto next = clock::now() + period;
        std::unique_lock lock(mutex);
        for (;;) {
            if (wake.wait_until(lock, next, [this] { return stopping; }))
                return;
            lock.unlock();
            take(sample_depth::cheap);
            auto now = clock::now();
            lock.lock();
            // A fixed rate, not a fixed pause; ticks missed while the machine was busy are skipped, not bunched.
            next += period;
            if (next <= now)
                next = now + period;
        }
    }

    void halt()
    {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        wake.notify_all();
        if (thread.joinable())
            thread.join();
    }
};

periodic_sampler::periodic_sampler(sample_source source, std::chrono::milliseconds period,
                                   std::chrono::milliseconds full_period)
    : impl_(std::make_unique<impl>())
{
    impl_->source = std::move(source);
    impl_->full_period = full_period;
    // A zero or negative period would spin; one millisecond is already far finer than /proc's tick resolution.
    impl_->period = std::max(period, std::chrono::milliseconds{1});
}

periodic_sampler::~periodic_sampler()
{
    impl_->halt();
}

void periodic_sampler::start()
{
    auto& m = *impl_;
    m.halt();
    m.stopping = false;
    m.started = true;
    m.readings.clear();
    m.cpu_seconds = 0;
    m.take(sample_depth::full);
    m.thread = std::thread([&m] { m.run(); });
}

std::vector<timed_sample> periodic_sampler::stop()
{
    auto& m = *impl_;
    if (!m.started)
        return {};
    m.halt();
    m.started = false;
    // The last reading closes the window, so a trial shorter than the period still has a start and an end; it is
    // full, so the window's context switches are a difference of two full readings.
    m.take(sample_depth::full);
    return std::move(m.readings);
}

std::chrono::milliseconds periodic_sampler::period() const noexcept
{
    return impl_->period;
}

double periodic_sampler::cpu_seconds() const noexcept
{
    return impl_->cpu_seconds.load(std::memory_order_relaxed);
}

std::optional<std::size_t> rate_start(std::span<const timed_sample> readings, std::size_t end,
                                      std::chrono::milliseconds period)
{
    if (end >= readings.size())
        return std::nullopt;
    auto latest = readings[end].at - period / 2;
    for (auto i = end; i-- > 0;)
        if (readings[i].at <= latest)
            return i;
    return std::nullopt;
}

double cpu_percent_between(const timed_sample& a, const timed_sample& b)
{
    auto wall = std::chrono::duration<double>(b.at - a.at).count();
    if (wall <= 0)
        return 0;
    return std::max(0.0, (b.sample.cpu_seconds - a.sample.cpu_seconds) / wall * 100);
}

process_summary summarize_readings(std::span<const timed_sample> readings, std::chrono::milliseconds period)
{
    process_summary out;
    if (readings.empty())
        return out;
    constexpr double mib = 1024.0 * 1024.0;
    double resident_sum = 0;
    std::uint64_t resident_max = 0;
    for (std::size_t i = 0; i < readings.size(); ++i) {
        const auto& s = readings[i].sample;
        resident_sum += static_cast<double>(s.resident_bytes);
        resident_max = std::max(resident_max, s.resident_bytes);
        out.threads_max = std::max(out.threads_max, s.threads);
        out.sockets_max = std::max(out.sockets_max, s.open_sockets);
        // The busiest second, not the busiest period: over 100 ms one 10 ms clock tick more or less is 10 % of a
        // core, and a maximum picks the interval where the ticks bunched (110 % of one core, on one core).
        if (auto from = rate_start(readings, i, std::max(period, 2 * cpu_max_window)))
            out.cpu_percent_max = std::max(out.cpu_percent_max, cpu_percent_between(readings[*from], readings[i]));
    }
    const auto& first = readings.front();
    const auto& last = readings.back();
    out.samples = static_cast<std::uint32_t>(readings.size());
    out.resident_mb_avg = resident_sum / double(readings.size()) / mib;
    out.resident_mb_max = static_cast<double>(resident_max) / mib;
    out.cpu_seconds = std::max(0.0, last.sample.cpu_seconds - first.sample.cpu_seconds);
    auto wall = std::chrono::duration<double>(last.at - first.at).count();
    out.cpu_percent_avg = wall > 0 ? out.cpu_seconds / wall * 100 : 0;
    // In a window shorter than a second no maximum was taken; the average is then the best estimate.
    out.cpu_percent_max = std::max(out.cpu_percent_max, out.cpu_percent_avg);
    // Per-thread counters of exited threads vanish from the sum, so a delta may be negative; report 0 then.
    auto delta = [](std::uint64_t from, std::uint64_t to) { return to > from ? to - from : 0; };
    out.voluntary_switches = delta(first.sample.voluntary_switches, last.sample.voluntary_switches);
    out.involuntary_switches = delta(first.sample.involuntary_switches, last.sample.involuntary_switches);
    if (out.sockets_max > first.sample.open_sockets)
        out.resident_bytes_per_socket =
            static_cast<double>(delta(first.sample.resident_bytes, resident_max)) /
            static_cast<double>(out.sockets_max - first.sample.open_sockets);
    return out;
}

}  // namespace execbench::stats
