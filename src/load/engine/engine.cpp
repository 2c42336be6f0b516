#include "execbench/load/engine/engine.hpp"

#include "group.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <latch>
#include <memory>
#include <thread>

#include <sys/resource.h>

// A trial's orchestration: one thread per `trial_plan::threads`, each with its own io_context and its share of
// every group's connections (group.cpp, connection.cpp); start signals; stop; the threads' measurements merged at
// the end (measurement.cpp).
namespace execbench::load {

namespace {

namespace asio = boost::asio;
using detail::clock;
using detail::group;

constexpr auto tick_period = std::chrono::milliseconds{20};

/// What the threads of one trial share: start signals and a few counters, nothing on the request path.
struct trial_shared {
    explicit trial_shared(unsigned threads) : ready(threads) {}
    std::latch ready;
    std::latch go{1};
    std::atomic<std::uint64_t> background_first_sends{0};
    std::atomic<unsigned> foreground_done{0};
    std::atomic<unsigned> background_done{0};
    std::atomic<unsigned> threads_done{0};
};

/// One thread of a trial: its io_context, its share of every group's connections, and a periodic tick.
class worker {
public:
    worker(const trial_plan& plan, unsigned index, trial_shared& shared)
        : plan_(plan), shared_(shared), ioc_(1), tick_(ioc_), guard_(asio::make_work_guard(ioc_))
    {
        foreground_ = std::make_unique<group>(ioc_, plan.foreground, plan, index, nullptr);
        if (plan.background)
            background_ = std::make_unique<group>(ioc_, *plan.background, plan, index, &shared.background_first_sends);
    }

    asio::io_context& ioc() noexcept { return ioc_; }
    group& foreground() noexcept { return *foreground_; }
    group* background() noexcept { return background_.get(); }

    /// Opens the connections of every shape except ramp (whose users connect when they arrive), so a trial
    /// measures requests rather than the connection storm, unless the load asks for the storm (`preconnect`
    /// false); bounded by the connect timeout.
    void preconnect()
    {
        std::size_t pending = 0;
        for (auto* g : {foreground_.get(), background_.get()}) {
            if (!g)
                continue;
            const auto& load = (g == foreground_.get() ? plan_.foreground : *plan_.background).load;
            if (load.kind == shape::ramp || !load.preconnect)
                continue;
            for (auto& c : g->connections())
                c->preconnect(plan_.endpoints.front(), pending);
        }
        if (pending == 0)
            return;
        asio::steady_timer limit(ioc_);
        bool expired = false;
        limit.expires_after(plan_.connect_timeout);
        limit.async_wait([&](const boost::system::error_code& ec) {
            if (ec)
                return;
            expired = true;
            for (auto* g : {foreground_.get(), background_.get()})
                if (g)
                    g->close_all();
        });
        while (pending > 0 && ioc_.run_one()) {
        }
        if (!expired) {
            limit.cancel();
            ioc_.run_one();
        }
    }

    void run()
    {
        schedule_tick();
        ioc_.run();
    }

private:
    void schedule_tick()
    {
        tick_.expires_after(tick_period);
        tick_.async_wait([this](const boost::system::error_code& ec) {
            if (!ec)
                on_tick();
        });
    }

    void on_tick()
    {
        auto now = clock::now();
        if (plan_.stop && plan_.stop->load(std::memory_order_relaxed) && !stopped_) {
            stopped_ = true;
            foreground_->abort();
            if (background_)
                background_->abort();
        }
        foreground_->tick(now);
        if (background_)
            background_->tick(now);
        publish();
        bool fg_done = foreground_->finished();
        bool bg_done = !background_ || background_->finished();
        if (fg_done && !fg_signalled_) {
            fg_signalled_ = true;
            shared_.foreground_done.fetch_add(1);
        }
        if (background_ && bg_done && !bg_signalled_) {
            bg_signalled_ = true;
            shared_.background_done.fetch_add(1);
        }
        if (fg_done && bg_done) {
            foreground_->close_all();
            if (background_)
                background_->close_all();
            guard_.reset();
            return;
        }
        schedule_tick();
    }

    void publish()
    {
        if (!plan_.live)
            return;
        auto ok = foreground_->ok_count(), err = foreground_->error_count();
        plan_.live->ok.fetch_add(ok - published_ok_, std::memory_order_relaxed);
        plan_.live->errors.fetch_add(err - published_errors_, std::memory_order_relaxed);
        published_ok_ = ok;
        published_errors_ = err;
    }

    const trial_plan& plan_;
    trial_shared& shared_;
    asio::io_context ioc_;
    asio::steady_timer tick_;
    asio::executor_work_guard<asio::io_context::executor_type> guard_;
    std::unique_ptr<group> foreground_;
    std::unique_ptr<group> background_;
    bool stopped_ = false;
    bool fg_signalled_ = false;
    bool bg_signalled_ = false;
    std::uint64_t published_ok_ = 0;
    std::uint64_t published_errors_ = 0;
};

double cpu_seconds_of_self()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto tv = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return tv(ru.ru_utime) + tv(ru.ru_stime);
}

bool stop_requested(const trial_plan& plan)
{
    return plan.stop && plan.stop->load(std::memory_order_relaxed);
}

/// The generator's own CPU per whole second from `from`, read by the orchestrating thread while the workers run
/// (it only waits otherwise), so a chart can show the generator's load beside the server's.
class cpu_seconds_recorder {
public:
    void start(clock::time_point from)
    {
        next_ = from + std::chrono::seconds{1};
        last_cpu_ = cpu_seconds_of_self();
        started_ = true;
    }

    /// Takes the reading that is due; returns how long the caller may sleep, `at_most` or until the next one.
    clock::duration poll(clock::duration at_most)
    {
        if (!started_)
            return at_most;
        auto now = clock::now();
        if (now >= next_) {
            auto cpu = cpu_seconds_of_self();
            // A late wake-up (a starved box) still divides by the time that actually passed.
            auto span = std::chrono::duration<double>(now - (next_ - std::chrono::seconds{1})).count();
            percent_.push_back(100.0 * (cpu - last_cpu_) / std::max(span, 1e-3));
            last_cpu_ = cpu;
            next_ += std::chrono::seconds{1};
            while (next_ <= now)
                next_ += std::chrono::seconds{1};
        }
        return std::min<clock::duration>(at_most, next_ - now);
    }

    std::vector<double> take() { return std::move(percent_); }

private:
    clock::time_point next_{};
    double last_cpu_ = 0;
    bool started_ = false;
    std::vector<double> percent_;
};

}  // namespace

trial_measurement run_trial(const trial_plan& plan)
{
    trial_measurement out;
    auto started = clock::now();
    auto cpu_before = cpu_seconds_of_self();
    unsigned threads = std::max(1u, plan.threads);
    trial_plan p = plan;
    p.threads = threads;

    trial_shared shared(threads);
    std::vector<std::unique_ptr<worker>> workers;
    for (unsigned i = 0; i < threads; ++i)
        workers.push_back(std::make_unique<worker>(p, i, shared));
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            workers[i]->preconnect();
            shared.ready.count_down();
            shared.go.wait();
            workers[i]->run();
            shared.threads_done.fetch_add(1);
        });
    }
    shared.ready.wait();

    auto t0 = clock::now();
    cpu_seconds_recorder cpu;
    if (p.background) {
        for (auto& w : workers)
            asio::post(w->ioc(), [g = w->background(), t0] { g->start(t0); });
        shared.go.count_down();
        // The foreground starts once every background connection has its first request in flight.
        auto want = connections_of(p.background->load);
        auto limit = t0 + p.connect_timeout + p.timeout;
        while (shared.background_first_sends.load() < want && shared.background_done.load() < threads &&
               !stop_requested(p) && clock::now() < limit)
            std::this_thread::sleep_for(std::chrono::microseconds{200});
        if (p.background_delay.count() > 0 && !stop_requested(p))
            std::this_thread::sleep_for(p.background_delay);
        auto t_fg = clock::now();
        cpu.start(t_fg);
        for (auto& w : workers)
            asio::post(w->ioc(), [g = &w->foreground(), t_fg] { g->start(t_fg); });
    } else {
        cpu.start(t0);
        for (auto& w : workers)
            asio::post(w->ioc(), [g = &w->foreground(), t0] { g->start(t0); });
        shared.go.count_down();
    }
    if (p.background) {
        while (shared.foreground_done.load() < threads)
            std::this_thread::sleep_for(cpu.poll(std::chrono::milliseconds{2}));
        for (auto& w : workers)
            asio::post(w->ioc(), [g = w->background()] { g->finish_issuing(); });
    }
    // The tick period bounds how late the end of the trial is noticed, as the workers' own ticks do.
    while (shared.threads_done.load() < threads)
        std::this_thread::sleep_for(cpu.poll(tick_period));
    for (auto& t : pool)
        t.join();
    out.loadgen_cpu_percent = cpu.take();

    for (auto& w : workers) {
        merge_into(out.foreground, w->foreground().take_measurement());
        if (auto* bg = w->background()) {
            if (!out.background)
                out.background.emplace();
            merge_into(*out.background, bg->take_measurement());
        }
    }
    out.stopped = stop_requested(p);
    out.loadgen_cpu_seconds = cpu_seconds_of_self() - cpu_before;
    out.elapsed = clock::now() - started;
    return out;
}

}  // namespace execbench::load
