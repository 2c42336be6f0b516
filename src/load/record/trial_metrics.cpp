#include "execbench/load/record/trial_metrics.hpp"

#include "execbench/load/metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace execbench::load {

namespace {

double ms(std::int64_t micros)
{
    return double(micros) / 1000.0;
}

std::uint64_t percentile_of(std::vector<std::uint64_t> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

struct saturated_run {
    std::size_t first = 0;
    std::size_t length = 0;
};

saturated_run longest_saturated_run(const std::vector<double>& per_second, double bound)
{
    saturated_run best, current;
    for (std::size_t i = 0; i < per_second.size(); ++i) {
        if (per_second[i] >= bound) {
            current = {current.length == 0 ? i : current.first, current.length + 1};
            if (current.length > best.length)
                best = current;
        } else {
            current = {};
        }
    }
    return best;
}

}  // namespace

std::string generator_bound_reason(const trial_result& t, unsigned threads, unsigned load_cpus)
{
    std::string why;
    // One worker thread can use one core whatever the mask says; the generator's other threads only sample.
    auto cores = std::max(1u, std::min(std::max(1u, threads), std::max(1u, load_cpus)));
    auto elapsed = std::chrono::duration<double>(t.measured.elapsed).count();
    auto cpu = elapsed > 0 ? 100.0 * t.measured.loadgen_cpu_seconds / elapsed : 0.0;
    auto bound = generator_cpu_bound_percent * cores;
    if (cpu >= bound) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "load generator CPU %.0f%% of %u core(s)", cpu, cores);
        why = buf;
    } else if (auto run = longest_saturated_run(t.measured.loadgen_cpu_percent, bound);
               run.length >= generator_saturated_seconds) {
        // A ramp or spike can saturate the generator at its peak only, which the trial's average hides.
        char buf[128];
        std::snprintf(buf, sizeof buf, "load generator CPU >= %.0f%% of %u core(s) for %zu s (seconds %zu-%zu)",
                      generator_cpu_bound_percent, cores, run.length, run.first + 1, run.first + run.length);
        why = buf;
    }
    const auto& lag = t.measured.foreground.schedule_lag;
    if (lag.count() > 0 && ms(lag.value_at_percentile(99)) > generator_lag_bound_millis) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "open-loop send timer p99 %.1f ms late", ms(lag.value_at_percentile(99)));
        why += (why.empty() ? "" : "; ") + std::string(buf);
    }
    if (!why.empty() && t.measured.foreground.count.unsent > 0)
        why += "; its " + std::to_string(t.measured.foreground.count.unsent) + " unsent requests are the generator's";
    return why;
}

std::vector<std::pair<std::string, double>> trial_metrics(const trial_result& t)
{
    const auto& fg = t.measured.foreground;
    std::vector<std::pair<std::string, double>> m;
    auto wall_s = std::chrono::duration<double>(fg.wall).count();
    m.emplace_back(metric::requests_total, double(fg.count.total()));
    m.emplace_back(metric::requests_ok, double(fg.count.ok));
    m.emplace_back(metric::requests_error, double(fg.count.error_total()));
    m.emplace_back(metric::wall_millis, wall_s * 1000.0);
    m.emplace_back(metric::requests_per_second, wall_s > 0 ? double(fg.count.ok) / wall_s : 0.0);
    m.emplace_back(metric::latency_millis_min, ms(fg.latency.min()));
    m.emplace_back(metric::latency_millis_p50, ms(fg.latency.value_at_percentile(50)));
    m.emplace_back(metric::latency_millis_p90, ms(fg.latency.value_at_percentile(90)));
    m.emplace_back(metric::latency_millis_p99, ms(fg.latency.value_at_percentile(99)));
    m.emplace_back(metric::latency_millis_p999, ms(fg.latency.value_at_percentile(99.9)));
    m.emplace_back(metric::latency_millis_max, ms(fg.latency.max()));
    for (std::size_t i = 0; i < error_class_count; ++i)
        m.emplace_back(metric::errors_column(to_string(static_cast<error_class>(i))), double(fg.count.errors[i]));
    m.emplace_back(metric::requests_unsent, double(fg.count.unsent));
    m.emplace_back(metric::service_millis_p50, ms(fg.service.value_at_percentile(50)));
    m.emplace_back(metric::service_millis_p99, ms(fg.service.value_at_percentile(99)));
    m.emplace_back(metric::connect_millis_mean, fg.connect.count() > 0 ? fg.connect.mean() / 1000.0 : 0.0);
    m.emplace_back(metric::connect_millis_p50, ms(fg.connect.value_at_percentile(50)));
    m.emplace_back(metric::connect_millis_p99, ms(fg.connect.value_at_percentile(99)));
    m.emplace_back(metric::connections_opened, double(fg.count.connections_opened));
    m.emplace_back(metric::connections_per_second, wall_s > 0 ? double(fg.count.connections_opened) / wall_s : 0.0);
    m.emplace_back(metric::tls_handshakes_full, double(fg.count.tls_full));
    m.emplace_back(metric::tls_handshakes_resumed, double(fg.count.tls_resumed));
    // Per-second throughput over whole seconds only (the last, partial second would drag the figures down).
    std::vector<std::uint64_t> per_second;
    auto whole = static_cast<std::size_t>(wall_s);
    for (std::size_t i = 0; i < fg.timeline.size() && i < std::max<std::size_t>(whole, 1); ++i)
        per_second.push_back(fg.timeline[i].ok);
    m.emplace_back(metric::per_second_requests_p50, double(percentile_of(per_second, 50)));
    m.emplace_back(metric::per_second_requests_p90, double(percentile_of(per_second, 90)));
    m.emplace_back(metric::per_second_requests_max,
                   per_second.empty() ? 0.0 : double(*std::max_element(per_second.begin(), per_second.end())));
    stats::process_summary s = t.server.value_or(stats::process_summary{});
    m.emplace_back(metric::server_rss_mb_avg, s.resident_mb_avg);
    m.emplace_back(metric::server_rss_mb_max, s.resident_mb_max);
    m.emplace_back(metric::server_cpu_percent_avg, s.cpu_percent_avg);
    m.emplace_back(metric::server_cpu_percent_max, s.cpu_percent_max);
    m.emplace_back(metric::server_threads_max, double(s.threads_max));
    m.emplace_back(metric::server_voluntary_switches, double(s.voluntary_switches));
    m.emplace_back(metric::server_involuntary_switches, double(s.involuntary_switches));
    m.emplace_back(metric::server_sockets_max, double(s.sockets_max));
    m.emplace_back(metric::server_rss_bytes_per_connection, s.resident_bytes_per_socket);
    // How many samples the server figures above rest on: the report leaves out figures from fewer than three.
    m.emplace_back(metric::server_samples, double(s.samples));
    auto elapsed_s = std::chrono::duration<double>(t.measured.elapsed).count();
    m.emplace_back(metric::loadgen_cpu_seconds, t.measured.loadgen_cpu_seconds);
    m.emplace_back(metric::loadgen_cpu_percent,
                   elapsed_s > 0 ? 100.0 * t.measured.loadgen_cpu_seconds / elapsed_s : 0.0);
    m.emplace_back(metric::loadgen_sampler_cpu_seconds, t.sampler_cpu_seconds);
    const auto* bg = t.measured.background ? &*t.measured.background : nullptr;
    m.emplace_back(metric::background_requests_ok, bg ? double(bg->count.ok) : 0.0);
    m.emplace_back(metric::background_requests_error, bg ? double(bg->count.error_total()) : 0.0);
    m.emplace_back(metric::background_latency_millis_p50, bg ? ms(bg->latency.value_at_percentile(50)) : 0.0);
    for (const auto& [name, v] : kernel_columns(t.kernel.value_or(kernel_counters{})))
        m.emplace_back(name, v);
    for (const auto& [name, v] : downstream_columns(t.downstream.value_or(stats::downstream_reading{})))
        m.emplace_back(name, v);
    return m;
}

const std::vector<std::string_view>& noise_metrics()
{
    static const std::vector<std::string_view> names{metric::wall_millis, metric::requests_per_second,
                                                     metric::latency_millis_p50, metric::latency_millis_p99};
    return names;
}

void summarize_trials(run_record& out)
{
    out.summary.clear();
    if (out.trials.empty())
        return;
    auto first = trial_metrics(out.trials.front());
    std::vector<std::vector<double>> columns(first.size());
    // A generator-bound trial measured the generator, not the server; when every trial is, the figures are kept
    // and generator_bound_trials says what they are worth.
    bool all_bound = out.generator_bound_trials() == out.trials.size();
    std::size_t counted = 0;
    for (const auto& t : out.trials) {
        if (t.generator_bound && !all_bound)
            continue;
        ++counted;
        auto m = trial_metrics(t);
        for (std::size_t k = 0; k < m.size(); ++k)
            columns[k].push_back(m[k].second);
    }
    const auto& noisy_names = noise_metrics();
    for (std::size_t k = 0; k < first.size(); ++k) {
        metric_spread m;
        m.name = first[k].first;
        m.spread = stats::summarize(columns[k]);
        m.noisy = counted > 1 && std::find(noisy_names.begin(), noisy_names.end(), m.name) != noisy_names.end() &&
                  stats::is_noisy(m.spread);
        out.summary.push_back(std::move(m));
    }
}

}  // namespace execbench::load
