#include "execbench/report/word/run_table.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"

#include <map>

namespace execbench::report {

run_table::run_table()
    : table_{{"scenario", "arm", "status", "ok", "errors", "unsent", "wall_ms", "req/s", "p50_ms", "p99_ms", "rss_MB",
              "cpu%", "threads"},
             {}}
{
}

void run_table::add(const load::suite_entry& entry, const load::run_record* result)
{
    // The scenario's name on its first arm only: the arms read as one block.
    std::vector<cell> row{entry.scenario == last_scenario_ ? std::string{} : entry.scenario, entry.arm_name(),
                          std::string(load::to_string(entry.status))};
    last_scenario_ = entry.scenario;
    if (!result || result->summary.empty()) {
        table_.rows.push_back(std::move(row));
        return;
    }
    namespace metric = load::metric;
    std::map<std::string_view, double> median;
    for (const auto& m : result->summary)
        median[m.name] = m.spread.median;
    auto figure = [&](std::string_view name, int decimals) {
        auto v = median[name];
        return cell{fixed(v, decimals), v};
    };
    // Latency is of successful requests: with none, a 0.0 ms percentile would read as a perfect one.
    bool none_ok = median[metric::requests_ok] <= 0;
    no_latency_ = no_latency_ || none_ok;
    auto latency = [&](std::string_view name) { return none_ok ? cell{"-"} : figure(name, 1); };
    row.insert(row.end(), {figure(metric::requests_ok, 0), figure(metric::requests_error, 0),
                           figure(metric::requests_unsent, 0), figure(metric::wall_millis, 1),
                           figure(metric::requests_per_second, 0), latency(metric::latency_millis_p50),
                           latency(metric::latency_millis_p99), figure(metric::server_rss_mb_max, 1),
                           figure(metric::server_cpu_percent_avg, 0), figure(metric::server_threads_max, 0)});
    table_.rows.push_back(std::move(row));
}

page run_table::to_page() const
{
    page p;
    p.add(table_);
    if (no_latency_)
        p.add(paragraph{"(p50_ms, p99_ms '-': no successful request, so no latency)"});
    return p;
}

}  // namespace execbench::report
