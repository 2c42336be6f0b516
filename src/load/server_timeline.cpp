#include "server_timeline.hpp"

#include "execbench/stats/process.hpp"

#include "csv_lines.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load::detail {

using clock = std::chrono::steady_clock;

server_recorder::server_recorder(pid_t pid, std::chrono::milliseconds period) : pid_(pid), period_(period)
{
    thread_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!done_) {
            lock.unlock();
            auto s = stats::sample_process(pid_);
            lock.lock();
            if (s)
                readings_.push_back({clock::now(), s->cpu_seconds, double(s->resident_bytes) / (1024.0 * 1024.0),
                                     s->threads, s->open_sockets});
            cv_.wait_for(lock, period_, [this] { return done_; });
        }
    });
}

std::vector<server_recorder::reading> server_recorder::finish()
{
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
        // A last reading after the run, so the final trial has one at its end even when it was shorter than
        // the sampling period.
        if (auto s = stats::sample_process(pid_))
            readings_.push_back({clock::now(), s->cpu_seconds, double(s->resident_bytes) / (1024.0 * 1024.0),
                                 s->threads, s->open_sockets});
    }
    return readings_;
}


const char* const server_timeline_header =
    "run_id,scenario,model,arm,trial,second,server_cpu_percent,server_rss_mb,server_threads,server_sockets";

/// Per-second CSV lines of the server figures inside each trial window.
std::vector<std::string> server_timeline_lines(const run_result& r, const std::vector<trial_window>& windows,
                                               const std::vector<server_recorder::reading>& readings)
{
    std::vector<std::string> lines;
    auto last_at_or_before = [&](clock::time_point t) -> const server_recorder::reading* {
        const server_recorder::reading* best = nullptr;
        for (const auto& rd : readings) {
            if (rd.at <= t)
                best = &rd;
            else
                break;
        }
        return best;
    };
    for (const auto& w : windows) {
        auto seconds = static_cast<long>(std::ceil(std::chrono::duration<double>(w.end - w.start).count()));
        for (long k = 0; k < std::max(seconds, 1L); ++k) {
            auto from = w.start + std::chrono::seconds{k};
            auto to = std::min(w.end, from + std::chrono::seconds{1});
            // The readings just around the second, so a trial shorter than the sampling period still gets one.
            const auto* a = last_at_or_before(from);
            if (!a && !readings.empty())
                a = &readings.front();
            const server_recorder::reading* b = nullptr;
            for (const auto& rd : readings)
                if (rd.at >= to) {
                    b = &rd;
                    break;
                }
            if (!b && !readings.empty())
                b = &readings.back();
            if (!a || !b || b->at <= a->at)
                continue;
            double cpu = 100.0 * (b->cpu_seconds - a->cpu_seconds) / std::chrono::duration<double>(b->at - a->at).count();
            double rss = b->rss_mb;
            std::uint32_t threads = b->threads, sockets = b->sockets;
            for (const auto& rd : readings)
                if (rd.at >= from && rd.at <= to) {
                    rss = std::max(rss, rd.rss_mb);
                    threads = std::max(threads, rd.threads);
                    sockets = std::max(sockets, rd.sockets);
                }
            lines.push_back(csv_field(r.run_id) + "," + csv_field(r.scenario_used.name) + "," +
                            csv_field(r.server.model) + "," + csv_field(r.arm_name()) + "," + std::to_string(w.trial) +
                            "," + std::to_string(k) + "," +
                            fixed(std::max(cpu, 0.0), 1) + "," + fixed(rss, 1) + "," + std::to_string(threads) + "," +
                            std::to_string(sockets));
        }
    }
    return lines;
}

}  // namespace execbench::load::detail
