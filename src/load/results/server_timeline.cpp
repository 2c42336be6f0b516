#include "execbench/load/results/server_timeline.hpp"

#include "execbench/load/record/schema.hpp"
#include "execbench/load/results/csv_lines.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load::detail {

const char* const server_timeline_header =
    "run_id,scenario,model,arm,trial,second,server_cpu_percent,server_rss_mb,server_threads,server_sockets,schema";

namespace {

/// Per-second lines of one trial window from its server's readings.
void window_lines(const run_record& r, const trial_window& w, const std::vector<stats::timed_sample>& readings,
                  std::chrono::milliseconds period, std::vector<std::string>& lines)
{
    if (readings.empty())
        return;
    constexpr double mib = 1024.0 * 1024.0;
    auto seconds = static_cast<long>(std::ceil(std::chrono::duration<double>(w.end - w.start).count()));
    for (long k = 0; k < std::max(seconds, 1L); ++k) {
        auto from = w.start + std::chrono::seconds{k};
        auto to = std::min(w.end, from + std::chrono::seconds{1});
        // The readings just around the second, so a trial shorter than the sampling period still gets one.
        std::size_t a = 0;
        while (a + 1 < readings.size() && readings[a + 1].at <= from)
            ++a;
        std::size_t b = a;
        while (b + 1 < readings.size() && readings[b].at < to)
            ++b;
        // The same rule as the trial's summary: a rate is not taken over less than half a period.
        auto start = stats::rate_start(readings, b, period);
        if (!start)
            continue;
        a = std::min(a, *start);
        double cpu = stats::cpu_percent_between(readings[a], readings[b]);
        auto rss = readings[b].sample.resident_bytes;
        auto threads = readings[b].sample.threads;
        auto sockets = readings[b].sample.open_sockets;
        for (const auto& rd : readings)
            if (rd.at >= from && rd.at <= to) {
                rss = std::max(rss, rd.sample.resident_bytes);
                threads = std::max(threads, rd.sample.threads);
                sockets = std::max(sockets, rd.sample.open_sockets);
            }
        lines.push_back(csv_field(r.run_id) + "," + csv_field(r.scenario_used.name) + "," + csv_field(r.server.model) +
                        "," + csv_field(r.arm_name()) + "," + std::to_string(w.trial) + "," + std::to_string(k) + "," +
                        fixed(cpu, 1) + "," + fixed(double(rss) / mib, 1) + "," + std::to_string(threads) + "," +
                        std::to_string(sockets) + "," + std::to_string(schema_version));
    }
}

}  // namespace

std::vector<std::string> server_timeline_lines(const run_record& r, const std::vector<sampled_server>& servers,
                                               std::chrono::milliseconds period)
{
    std::vector<std::string> lines;
    for (const auto& server : servers)
        for (const auto& w : server.windows)
            window_lines(r, w, server.readings, period, lines);
    return lines;
}

}  // namespace execbench::load::detail
