// A scenario's table on its suite page: one row per figure, one cell per arm.
#include "execbench/report/suite_page/scenario_rows.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/report/word/words.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace execbench::report {

namespace metric = load::metric;

namespace {

/// The kernel counter columns in the order the page shows them (their labels are the metric table's).
constexpr std::array kernel_columns{
    metric::kernel_listen_overflows, metric::kernel_listen_drops, metric::kernel_syn_retransmits,
    metric::kernel_tcp_timeouts,     metric::kernel_active_opens, metric::kernel_passive_opens,
    metric::kernel_resets_sent,      metric::kernel_aborts,       metric::kernel_time_wait};

/// A metric's row label on the page, from the metric table: "latency p99 (ms)".
std::string row_label(std::string_view column)
{
    const auto& m = load::metric_of(column);
    return m.unit.empty() ? m.label : m.label + " (" + m.unit + ")";
}

}  // namespace

std::vector<std::string> error_classes(const run_view& v)
{
    std::vector<std::string> out;
    for (const auto& [k, val] : v.summary)
        if (metric::is_errors_column(k) && whole(load::number_of(val)) > 0)
            out.push_back(k.substr(metric::errors_prefix.size()) + " " + count(load::number_of(val)));
    return out;
}

std::string unsent_percent(const run_view& v)
{
    auto unsent = whole(v.number(metric::requests_unsent));
    if (unsent <= 0)
        return {};
    auto planned = whole(v.number(metric::requests_ok)) + whole(v.number(metric::requests_error)) + unsent;
    return fixed(100.0 * unsent / planned, 0);
}

std::string status_text(const run_view& v)
{
    if (auto why = v.not_a_result(); why == "generator-bound")
        return "**generator-bound** (not a result)";
    else if (!why.empty())
        return "**" + why + "** (recorded before the per-second generator check)";
    switch (v.status) {
    case load::run_status::ok: return "ok";
    case load::run_status::behind: return "behind (unsent requests)";
    case load::run_status::errors: return "**request errors**";
    case load::run_status::failed: return "**failed**";
    case load::run_status::not_run: return "not run";
    case load::run_status::generator_bound: return "**generator-bound** (not a result)";
    case load::run_status::stopped: return "**stopped** early (partial)";
    }
    return "?";
}

namespace {

/// A scenario's table as it is built: a row per figure, a cell per arm. The evidence (the server's and the
/// generator's own figures, counts, the kernel's counters) is shown for every run; what would be the model's result
/// is not where the figures are the generator's.
class table_builder {
public:
    table_builder(const suite_data& s, const std::string& sc) : s_(s), sc_(sc) {}

    /// A row of the arm's result: "*why*" in place of a figure that is not one.
    template <class Cell>
    void row(const std::string& label, Cell cell)
    {
        add(label, cell, true);
    }
    /// A row of evidence, shown for every run that ran.
    template <class Cell>
    void evidence(const std::string& label, Cell cell)
    {
        add(label, cell, false);
    }
    /// True when some arm's run ran and `pred` holds for it: a row only some scenarios need.
    template <class Pred>
    [[nodiscard]] bool any_run(Pred pred) const
    {
        return std::any_of(s_.models.begin(), s_.models.end(), [&](const std::string& m) {
            const auto* v = find_run(s_, sc_, m);
            return v && v->ran() && pred(*v);
        });
    }
    void status()
    {
        std::vector<std::string> r{"status"};
        for (const auto& m : s_.models) {
            const auto* v = find_run(s_, sc_, m);
            r.push_back(v ? status_text(*v) : std::string{"–"});
        }
        rows_.push_back(std::move(r));
    }
    [[nodiscard]] const suite_data& suite() const noexcept { return s_; }
    [[nodiscard]] const std::string& scenario() const noexcept { return sc_; }
    std::vector<std::vector<std::string>> take() { return std::move(rows_); }

private:
    template <class Cell>
    void add(const std::string& label, Cell cell, bool result)
    {
        std::vector<std::string> r{label};
        for (const auto& m : s_.models) {
            const auto* v = find_run(s_, sc_, m);
            auto why = v ? v->not_a_result() : std::string{};
            r.push_back(!v || !v->ran() ? std::string{"–"} : result && !why.empty() ? "*" + why + "*" : cell(*v));
        }
        rows_.push_back(std::move(r));
    }

    const suite_data& s_;
    const std::string& sc_;
    std::vector<std::vector<std::string>> rows_;
};

/// Which run it was and what it counted: run id, scale, trials, requests, error classes, unsent requests.
void add_count_rows(table_builder& t)
{
    t.evidence("run", [](const run_view& v) { return "`" + v.run_id + "`"; });
    if (!scale_suffix(t.suite(), t.scenario()).empty())
        t.evidence("scale", [](const run_view& v) {
            return load::format_scale(v.scale) +
                   (v.time_scale == 1 ? "" : ", in " + load::format_scale(v.time_scale) + " of the time");
        });
    if (!tls_suffix(t.suite(), t.scenario()).empty()) {
        t.evidence("transport", [](const run_view& v) { return v.tls ? tls_label(v) : std::string{"cleartext"}; });
        t.evidence("TLS handshakes full / resumed", [](const run_view& v) {
            return count(v.figure(metric::tls_handshakes_full)) + " / " +
                   count(v.figure(metric::tls_handshakes_resumed));
        });
        t.evidence("connect p50 / p99 (ms, handshake included)", [](const run_view& v) {
            return millis(v.figure(metric::connect_millis_p50)) + " / " + millis(v.figure(metric::connect_millis_p99));
        });
    }
    t.evidence("trials", [](const run_view& v) { return count(v.figure(load::column::trials)); });
    t.evidence("requests ok / error", [](const run_view& v) {
        return count(v.figure(metric::requests_ok)) + " / " + count(v.figure(metric::requests_error));
    });
    t.evidence("error classes", [](const run_view& v) {
        std::string out;
        for (const auto& c : error_classes(v))
            out += (out.empty() ? "" : ", ") + c;
        return out.empty() ? std::string{"–"} : out;
    });
    if (t.any_run([](const run_view& v) { return v.number(metric::requests_unsent) > 0; }))
        t.evidence("unsent (open shape)", [](const run_view& v) { return count(v.figure(metric::requests_unsent)); });
}

/// The results a client sees: time, rates, latency percentiles, service time, background requests.
void add_latency_rows(table_builder& t)
{
    t.row(row_label(metric::wall_millis), [](const run_view& v) { return millis(v.figure(metric::wall_millis)); });
    t.row("req/s", [](const run_view& v) { return count(v.figure(metric::requests_per_second)); });
    // A burst ends within a second or two: per-second figures have one bucket.
    if (!t.any_run([](const run_view& v) { return v.shape == load::shape::burst; }))
        t.row("req/s per second p50 / max", [](const run_view& v) {
            return count(v.figure(metric::per_second_requests_p50)) + " / " +
                   count(v.figure(metric::per_second_requests_max));
        });
    for (auto column : {metric::latency_millis_p50, metric::latency_millis_p90, metric::latency_millis_p99,
                        metric::latency_millis_p999, metric::latency_millis_max})
        t.row(row_label(column), [column](const run_view& v) { return latency(v, column); });
    t.row("service time p50 / p99 (ms)", [](const run_view& v) {
        return latency(v, metric::service_millis_p50) + " / " + latency(v, metric::service_millis_p99);
    });
    if (t.any_run([](const run_view& v) {
            return v.number(metric::background_requests_ok) + v.number(metric::background_requests_error) > 0;
        }))
        t.row("background ok / error, p50 (ms)", [](const run_view& v) {
            return count(v.figure(metric::background_requests_ok)) + " / " +
                   count(v.figure(metric::background_requests_error)) + ", " +
                   (v.number(metric::background_requests_ok) > 0
                        ? millis(v.figure(metric::background_latency_millis_p50))
                        : std::string{"–"});
        });
}

/// What the run cost the server and the generator: memory, CPU, threads, switches, sockets.
void add_server_rows(table_builder& t)
{
    t.evidence("RSS avg / max (MiB)", [](const run_view& v) {
        return fixed_or_dash(v.figure(metric::server_rss_mb_avg), 1) + " / " +
               fixed_or_dash(v.figure(metric::server_rss_mb_max), 1);
    });
    // What a connection costs the server, where the column was recorded and some arm opened connections.
    if (t.any_run([](const run_view& v) { return v.number(metric::server_rss_bytes_per_connection) > 0; }))
        t.row("RSS per connection (B): median (trials)", [](const run_view& v) {
            const std::string column(metric::server_rss_bytes_per_connection);
            std::vector<double> trials;
            for (const auto& tr : v.trials)
                if (auto it = tr.find(column); it != tr.end())
                    trials.push_back(it->second);
            auto [low, high] = std::minmax_element(trials.begin(), trials.end());
            return count(v.figure(column)) +
                   (trials.size() > 1 ? " (" + count(*low) + "–" + count(*high) + ")" : std::string{});
        });
    t.evidence("CPU avg / max (%)", [](const run_view& v) {
        return fixed_or_dash(v.figure(metric::server_cpu_percent_avg), 0) + " / " +
               fixed_or_dash(v.figure(metric::server_cpu_percent_max), 0);
    });
    t.evidence("threads max", [](const run_view& v) { return count(v.figure(metric::server_threads_max)); });
    t.evidence("ctx switches vol / invol", [](const run_view& v) {
        return count(v.figure(metric::server_voluntary_switches)) + " / " +
               count(v.figure(metric::server_involuntary_switches));
    });
    t.evidence("sockets max", [](const run_view& v) { return count(v.figure(metric::server_sockets_max)); });
    t.evidence(row_label(metric::loadgen_cpu_percent),
               [](const run_view& v) { return fixed_or_dash(v.figure(metric::loadgen_cpu_percent), 0); });
}

/// A rate that is a multiple of each arm's capacity: the capacity, and how much of it the arm served.
void add_capacity_rows(table_builder& t)
{
    if (!t.any_run([](const run_view& v) { return capacity_basis_of(v).has_value(); }))
        return;
    t.evidence("offered: × capacity (req/s)", [](const run_view& v) {
        auto b = capacity_basis_of(v);
        if (!b)
            return std::string{"–"};
        char times[32];
        std::snprintf(times, sizeof times, "%g", b->times);
        return std::string(times) + " × " + count(b->capacity_rps) + " (" + b->capacity_of + ")";
    });
    t.row("goodput / capacity (trials)", [](const run_view& v) {
        auto b = capacity_basis_of(v);
        return b ? goodput_text(*b) : std::string{"–"};
    });
}

/// How much the trials agreed: the p99 and rate spread, and which figures were noisy.
void add_spread_rows(table_builder& t)
{
    t.row("spread p99 (ms)", [](const run_view& v) {
        return v.number(metric::requests_ok) > 0
                   ? millis(v.figure(metric::trial_min(metric::latency_millis_p99))) + " – " +
                         millis(v.figure(metric::trial_max(metric::latency_millis_p99)))
                   : std::string{"–"};
    });
    t.row("spread req/s", [](const run_view& v) {
        return count(v.figure(metric::trial_min(metric::requests_per_second))) + " – " +
               count(v.figure(metric::trial_max(metric::requests_per_second)));
    });
    t.row("noisy", [](const run_view& v) {
        if (v.number(load::column::trials) < 2)
            return std::string{"– (one trial)"};
        if (!v.noisy)
            return std::string{"no"};
        std::string listed;  // spaced so a long list wraps in a table cell
        for (const auto& m : v.noisy_metrics)
            listed += (listed.empty() ? "" : ", ") + m;
        return "**yes** (" + listed + ")";
    });
}

}  // namespace

std::vector<std::vector<std::string>> scenario_rows(const suite_data& s, const std::string& sc)
{
    table_builder t(s, sc);
    t.status();
    add_count_rows(t);
    add_latency_rows(t);
    add_server_rows(t);
    add_capacity_rows(t);
    // The kernel's TCP counters over a trial (medians), only where some arm's is not zero: a latency step of 1 s or
    // 3 s with SYN retransmits is the kernel's retry, not the model's.
    for (auto column : kernel_columns)
        if (t.any_run([column](const run_view& v) { return v.number(column) > 0; }))
            t.evidence(load::metric_of(column).label, [column](const run_view& v) { return count(v.figure(column)); });
    add_spread_rows(t);
    return t.take();
}

std::optional<capacity_basis> capacity_basis_of(const run_view& v)
{
    if (!v.context)
        return std::nullopt;
    const auto& from = v.context->scenario_used.load.rate_from;
    if (!from || from->capacity_rps == 0)
        return std::nullopt;
    capacity_basis b;
    b.capacity_of = from->capacity_of;
    b.times = from->times;
    b.capacity_rps = from->capacity_rps;
    b.search = from->search;
    // Served per second, the median second of each trial (the drain after the last send included), over capacity.
    for (const auto& t : v.trials)
        if (auto it = t.find(metric::per_second_requests_p50); it != t.end())
            b.goodput_ratios.push_back(it->second / b.capacity_rps);
    std::sort(b.goodput_ratios.begin(), b.goodput_ratios.end());
    return b;
}

std::string goodput_text(const capacity_basis& b)
{
    const auto& r = b.goodput_ratios;
    if (r.empty())
        return "–";
    return fixed((r[(r.size() - 1) / 2] + r[r.size() / 2]) / 2, 2) + " (" + fixed(r.front(), 2) + "–" +
           fixed(r.back(), 2) + ")";
}

}  // namespace execbench::report
