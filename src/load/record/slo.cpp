#include "execbench/load/record/slo.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/stats/trials.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace execbench::load {

namespace {

/// Short names people write in a gate, and the summary column each one reads.
struct alias {
    std::string_view name;
    std::string_view column;
};
/// p95 is no summary column (k6's default threshold is; the results files keep p50, p90, p99, p999): its gate
/// reads each trial's latency histogram.
constexpr std::string_view latency_millis_p95 = "latency_millis_p95";
/// Failed requests over requests answered or failed, a fraction (k6's http_req_failed rate): no summary column
/// either; its gate reads each trial's counts, and the worst trial decides, as for the counts.
constexpr std::string_view error_rate = "error_rate";

constexpr alias aliases[] = {
    {"p50", metric::latency_millis_p50},  {"p90", metric::latency_millis_p90},   {"p95", latency_millis_p95},
    {"p99", metric::latency_millis_p99},  {"p999", metric::latency_millis_p999}, {"max", metric::latency_millis_max},
    {"min", metric::latency_millis_min},  {"errors", metric::requests_error},    {"unsent", metric::requests_unsent},
    {"rps", metric::requests_per_second}, {"ok", metric::requests_ok},           {"wall", metric::wall_millis},
    {"error_rate", error_rate},           {"http_req_failed", error_rate},
};

/// k6's spelling of a percentile, p(95) or p(99.9), as the alias it means (p95, p999); any other name unchanged.
std::string without_k6_parentheses(const std::string& name)
{
    if (name.size() < 4 || name.rfind("p(", 0) != 0 || name.back() != ')')
        return name;
    auto digits = name.substr(2, name.size() - 3);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    return "p" + digits;
}

bool is_millis(std::string_view column)
{
    return column.find("millis") != std::string_view::npos;
}

/// Counts where one bad trial is enough to break the gate: errors and unsent requests.
bool is_failure_count(std::string_view column)
{
    return column == metric::requests_error || column == metric::requests_unsent || column == error_rate ||
           metric::is_errors_column(column);
}

std::vector<std::string> column_names()
{
    std::vector<std::string> out;
    for (const auto& [name, value] : trial_metrics(trial_result{}))
        out.push_back(name);
    return out;
}

result<slo_gate> parse_gate(const std::string& text)
{
    auto bad = [&](const std::string& what) { return fail("--slo: '" + text + "': " + what); };
    auto at = text.find_first_of("<>=");
    if (at == std::string::npos || at == 0)
        return bad("expected METRIC OP VALUE, e.g. p99<300ms, errors=0, rps>=1800");
    slo_gate g;
    g.text = text;
    auto name = without_k6_parentheses(std::string(trim(std::string_view(text).substr(0, at))));
    auto rest = std::string_view(text).substr(at);
    std::size_t op_len = 1;
    if (rest.substr(0, 2) == "<=") {
        g.compare = slo_gate::op::less_equal;
        op_len = 2;
    } else if (rest.substr(0, 2) == ">=") {
        g.compare = slo_gate::op::greater_equal;
        op_len = 2;
    } else if (rest.substr(0, 2) == "==") {
        g.compare = slo_gate::op::equal;
        op_len = 2;
    } else if (rest[0] == '<')
        g.compare = slo_gate::op::less;
    else if (rest[0] == '>')
        g.compare = slo_gate::op::greater;
    else
        g.compare = slo_gate::op::equal;
    for (const auto& a : aliases)
        if (a.name == name)
            g.metric = std::string(a.column);
    if (g.metric.empty()) {
        auto columns = column_names();
        if (std::find(columns.begin(), columns.end(), name) == columns.end())
            return bad("unknown metric '" + name +
                       "'; expected p50, p90, p95, p99, p999 (or k6's p(95)), min, max, wall, rps, ok, errors, "
                       "unsent, an error rate (errors<1%, error_rate<0.01, k6's http_req_failed<0.01) or a summary "
                       "column such as errors_http_5xx");
        g.metric = name;
    }
    auto value = std::string(trim(rest.substr(op_len)));
    if (value.empty())
        return bad("missing the value after the comparison");
    // A percentage is a rate: errors<1% is k6's errors rate, not a count of errors.
    double scale = 1;
    if (value.back() == '%') {
        if (g.metric != metric::requests_error && g.metric != error_rate)
            return bad("a percentage is an error rate only (errors<1%, http_req_failed<1%)");
        g.metric = std::string(error_rate);
        scale = 0.01;
        value = std::string(trim(std::string_view(value).substr(0, value.size() - 1)));
    }
    if (is_millis(g.metric) && value.find_first_not_of("0123456789.") != std::string::npos) {
        auto d = parse_duration(value);
        if (!d)
            return bad(d.err().message);
        g.limit = std::chrono::duration<double, std::milli>(*d).count();
        return g;
    }
    double v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || end != value.data() + value.size())
        return bad("'" + value + "' is not a number" + (is_millis(g.metric) ? " or a duration such as 300ms" : ""));
    g.limit = v * scale;  // a bare number on a latency is milliseconds
    return g;
}

bool holds(slo_gate::op op, double measured, double limit)
{
    switch (op) {
    case slo_gate::op::less: return measured < limit;
    case slo_gate::op::less_equal: return measured <= limit;
    case slo_gate::op::greater: return measured > limit;
    case slo_gate::op::greater_equal: return measured >= limit;
    case slo_gate::op::equal: return measured == limit;
    }
    return false;
}

}  // namespace

result<std::vector<slo_gate>> parse_slo(std::string_view text)
{
    std::vector<slo_gate> out;
    std::string item;
    for (char c : std::string(text) + ",") {
        if (c != ',') {
            item += c;
            continue;
        }
        auto gate = std::string(trim(item));
        item.clear();
        if (gate.empty())
            continue;
        auto g = parse_gate(gate);
        if (!g)
            return g.err();
        out.push_back(std::move(*g));
    }
    if (out.empty())
        return fail("--slo: expected at least one gate, e.g. 'p99<300ms,errors=0'");
    return out;
}

std::vector<slo_verdict> check_slo(const std::vector<slo_gate>& gates, const run_record& r)
{
    std::vector<slo_verdict> out;
    for (const auto& g : gates) {
        slo_verdict v;
        v.gate = g.text;
        v.metric = g.metric;
        double ok = 0;
        for (const auto& m : r.summary) {
            if (m.name == g.metric)
                v.measured = is_failure_count(g.metric) ? m.spread.max : m.spread.median;
            if (m.name == metric::requests_ok)
                ok = m.spread.median;
        }
        if (g.metric == latency_millis_p95 && !r.trials.empty()) {
            std::vector<double> per_trial;
            for (const auto& t : r.trials)
                per_trial.push_back(double(t.measured.foreground.latency.value_at_percentile(95)) / 1000.0);
            v.measured = stats::summarize(per_trial).median;
        }
        if (g.metric == error_rate) {
            v.measured = 0;
            for (const auto& t : r.trials) {
                const auto& c = t.measured.foreground.count;
                auto tried = double(c.ok + c.error_total());
                v.measured = std::max(v.measured, tried > 0 ? double(c.error_total()) / tried : 0.0);
            }
        }
        v.measurable = !r.summary.empty() && !(g.metric.rfind("latency_", 0) == 0 && ok <= 0);
        v.passed = v.measurable && holds(g.compare, v.measured, g.limit);
        out.push_back(std::move(v));
    }
    return out;
}

bool slo_broken(const std::vector<slo_verdict>& verdicts) noexcept
{
    return std::any_of(verdicts.begin(), verdicts.end(), [](const auto& v) { return !v.passed; });
}

std::string describe(const slo_verdict& v)
{
    if (!v.measurable)
        return v.gate + ": not measured (no successful requests)";
    char buf[64];
    if (v.metric == error_rate)
        std::snprintf(buf, sizeof buf, "%.4g %%", v.measured * 100);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v.measured);
    return v.gate + ": measured " + buf + (is_millis(v.metric) ? "ms" : "") +
           (is_failure_count(v.metric) ? " (worst trial)" : " (median)");
}

}  // namespace execbench::load
