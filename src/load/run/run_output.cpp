#include "execbench/load/run/run_output.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/scenario/scale.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace execbench::load {

namespace {

std::string format_ms(double millis)
{
    char buf[32];
    if (millis < 10)
        std::snprintf(buf, sizeof buf, "%.2fms", millis);
    else
        std::snprintf(buf, sizeof buf, "%.0fms", millis);
    return buf;
}

double value_of(const std::vector<std::pair<std::string, double>>& m, std::string_view name)
{
    for (const auto& [k, v] : m)
        if (k == name)
            return v;
    return 0;
}

/// " (connect_refused=600, http_5xx=3)": the error classes that occurred, named as their CSV columns.
std::string error_classes_of(const std::vector<std::pair<std::string, double>>& m)
{
    std::string out;
    for (std::size_t i = 0; i < error_class_count; ++i) {
        auto name = std::string(to_string(static_cast<error_class>(i)));
        auto n = value_of(m, metric::errors_column(name));
        if (n > 0)
            out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(static_cast<std::uint64_t>(std::llround(n)));
    }
    return out.empty() ? out : " (" + out + ")";
}

std::string line_of(const std::vector<std::pair<std::string, double>>& m, bool server_sampled)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, "total=%.0f ok=%.0f errors=%.0f", value_of(m, metric::requests_total),
                  value_of(m, metric::requests_ok), value_of(m, metric::requests_error));
    std::string out = buf + error_classes_of(m);
    out += " wall=" + format_ms(value_of(m, metric::wall_millis));
    if (value_of(m, metric::requests_ok) > 0) {
        std::snprintf(buf, sizeof buf, " rps=%.0f p50=%s p99=%s", value_of(m, metric::requests_per_second),
                      format_ms(value_of(m, metric::latency_millis_p50)).c_str(),
                      format_ms(value_of(m, metric::latency_millis_p99)).c_str());
        out += buf;
    } else {
        out += " no successful requests";  // 0 ms percentiles would read as a perfect latency
    }
    if (server_sampled) {
        std::snprintf(buf, sizeof buf, " rss_max=%.0fMiB cpu=%.0f%%", value_of(m, metric::server_rss_mb_max),
                      value_of(m, metric::server_cpu_percent_avg));
        out += buf;
    }
    std::snprintf(buf, sizeof buf, " load_cpu=%.0f%%", value_of(m, metric::loadgen_cpu_percent));
    out += buf;
    if (value_of(m, metric::requests_unsent) > 0) {
        std::snprintf(buf, sizeof buf, " unsent=%.0f", value_of(m, metric::requests_unsent));
        out += buf;
    }
    // Over TLS, what the connections cost: the handshakes by kind and how long a connect took with its handshake.
    if (auto full = value_of(m, metric::tls_handshakes_full), resumed = value_of(m, metric::tls_handshakes_resumed);
        full + resumed > 0) {
        std::snprintf(buf, sizeof buf, " tls_full=%.0f tls_resumed=%.0f connect_p99=%s", full, resumed,
                      format_ms(value_of(m, metric::connect_millis_p99)).c_str());
        out += buf;
    }
    if (value_of(m, metric::background_requests_ok) + value_of(m, metric::background_requests_error) > 0) {
        std::snprintf(buf, sizeof buf, " background_ok=%.0f background_errors=%.0f",
                      value_of(m, metric::background_requests_ok), value_of(m, metric::background_requests_error));
        out += buf;
    }
    return out;
}

}  // namespace

std::string format_trial_line(const run_record& r, const trial_result& t)
{
    return r.arm_name() + " " + r.scenario_used.name + " trial " + std::to_string(t.index) + "/" +
           std::to_string(r.scenario_used.trials) + ": " + line_of(trial_metrics(t), t.server.has_value()) +
           (t.measured.stopped ? " (stopped)" : "") +
           (t.generator_bound ? " GENERATOR-BOUND(" + t.generator_bound_reason + ")" : "");
}

std::string format_summary_line(const run_record& r)
{
    std::vector<std::pair<std::string, double>> medians;
    for (const auto& m : r.summary)
        medians.emplace_back(m.name, m.spread.median);
    bool sampled = std::any_of(r.trials.begin(), r.trials.end(), [](const auto& t) { return t.server.has_value(); });
    auto bound = r.generator_bound_trials();
    auto counted = bound == r.trials.size() ? bound : r.trials.size() - bound;
    std::string out = r.arm_name() + " " + r.scenario_used.name + " median of " + std::to_string(counted) + ": " +
                      line_of(medians, sampled);
    if (bound > 0)
        out += " GENERATOR-BOUND(" + std::to_string(bound) + " of " + std::to_string(r.trials.size()) + " trials" +
               (bound == r.trials.size() ? ", all kept" : ", left out") + ")";
    if (r.had_unsent() && !r.had_errors() && !r.partial)
        out += " BEHIND(unsent)";
    if (r.noisy()) {
        std::string which;
        for (const auto& m : r.summary)
            if (m.noisy)
                which += (which.empty() ? "" : ";") + m.name;  // as in the CSV's noisy_metrics
        out += " NOISY(" + which + ")";
    }
    if (r.partial)
        out += " PARTIAL";
    if (r.scenario_used.scale.factor != 1)
        out += " SCALE(" + format_scale(r.scenario_used.scale.factor) + ")";
    if (r.scenario_used.time_scale.factor != 1)
        out += " TIME(" + format_scale(r.scenario_used.time_scale.factor) + ")";
    return out;
}

namespace {

/// A whole number as an integer (counts: 5820, not 5820.0), any other value rounded to three decimals (3001.253,
/// a microsecond on the millisecond figures), the precision the text output and the CSV keep too.
nlohmann::ordered_json json_number(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15)
        return static_cast<std::int64_t>(v);
    return std::round(v * 1000.0) / 1000.0;
}

/// The fields both JSON records start with.
nlohmann::ordered_json json_head(const run_record& r, std::string_view type)
{
    const auto& s = r.scenario_used;
    nlohmann::ordered_json j;
    j["type"] = type;
    j["run_id"] = r.run_id;
    j["scenario"] = s.name;
    j["model"] = r.server.model;
    j["url"] = r.url;
    // The base URL alone does not say what was asked: a dashboard fed from standard output needs the endpoint too.
    auto mix = nlohmann::ordered_json::array();
    for (const auto& q : s.mix)
        mix.push_back({{"method", q.method}, {"path", q.path}, {"weight", q.weight}});
    j["mix"] = std::move(mix);
    j["protocol"] = to_string(s.protocol);
    if (s.protocol == http_protocol::h2)
        j["streams"] = s.streams;
    j["shape"] = to_string(s.load.kind);
    j["connections"] = s.load.connections;
    if (s.load.kind == shape::open)
        j["rate"] = s.load.rate;
    if (s.load.kind == shape::burst)
        j["requests"] = s.load.requests;
    if (s.load.kind != shape::burst)
        j["duration_millis"] = json_number(std::chrono::duration<double, std::milli>(s.load.length).count());
    j["trials"] = s.trials;
    return j;
}

/// {"connect_refused": 600}: the error classes that occurred.
nlohmann::ordered_json json_errors(const std::vector<std::pair<std::string, double>>& m)
{
    auto j = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < error_class_count; ++i) {
        auto name = std::string(to_string(static_cast<error_class>(i)));
        if (auto n = value_of(m, metric::errors_column(name)); n > 0)
            j[name] = json_number(n);
    }
    return j;
}

/// A metric value, or null for a latency nothing was measured for.
nlohmann::ordered_json json_value(const std::string& name, double v, bool any_ok)
{
    if (!any_ok && name.rfind("latency_", 0) == 0)
        return nullptr;
    return json_number(v);
}

}  // namespace

std::string format_trial_json(const run_record& r, const trial_result& t)
{
    auto j = json_head(r, "trial");
    j["trial"] = t.index;
    auto m = trial_metrics(t);
    bool any_ok = value_of(m, metric::requests_ok) > 0;
    auto metrics = nlohmann::ordered_json::object();
    for (const auto& [name, v] : m)
        metrics[name] = json_value(name, v, any_ok);
    j["metrics"] = std::move(metrics);
    j["errors"] = json_errors(m);
    j["server_sampled"] = t.server.has_value();
    j["stopped"] = t.measured.stopped;
    return j.dump();
}

std::string format_summary_json(const run_record& r, const std::vector<slo_verdict>& slo)
{
    auto j = json_head(r, "summary");
    j["trials_run"] = r.trials.size();
    std::vector<std::pair<std::string, double>> medians;
    for (const auto& m : r.summary)
        medians.emplace_back(m.name, m.spread.median);
    bool any_ok = value_of(medians, metric::requests_ok) > 0;
    auto median = nlohmann::ordered_json::object(), min = nlohmann::ordered_json::object(),
         max = nlohmann::ordered_json::object();
    auto noisy = nlohmann::ordered_json::array();
    for (const auto& m : r.summary) {
        median[m.name] = json_value(m.name, m.spread.median, any_ok);
        min[m.name] = json_value(m.name, m.spread.min, any_ok);
        max[m.name] = json_value(m.name, m.spread.max, any_ok);
        if (m.noisy)
            noisy.push_back(m.name);
    }
    j["median"] = std::move(median);
    j["min"] = std::move(min);
    j["max"] = std::move(max);
    j["errors"] = json_errors(medians);
    j["successful"] = any_ok;
    j["noisy_metrics"] = std::move(noisy);
    j["partial"] = r.partial;
    if (!slo.empty()) {
        auto gates = nlohmann::ordered_json::array();
        for (const auto& v : slo)
            gates.push_back(
                {{"gate", v.gate},
                 {"metric", v.metric},
                 {"measured", v.measurable ? json_number(v.measured) : nlohmann::ordered_json(nullptr)},
                 {"passed", v.passed}});
        j["slo"] = std::move(gates);
    }
    return j.dump();
}

std::optional<std::string> idle_server_warning(const run_record& r)
{
    std::uint64_t answered = 0;
    double busiest = 0;
    bool sampled = false;
    for (const auto& t : r.trials) {
        if (!t.server)
            continue;
        sampled = true;
        answered += t.measured.foreground.count.total();
        busiest = std::max(busiest, t.server->cpu_percent_avg);
    }
    // A thousand requests cost any real server more than one 10 ms clock tick.
    if (!sampled || !r.server.pid || answered < 1000 || busiest > 0)
        return std::nullopt;
    return "the sampled server process (pid " + std::to_string(*r.server.pid) + ") and its descendants used no CPU "
           "while " + std::to_string(answered) + " requests were answered: they are not what serves (a launcher, or "
           "workers started outside its tree); give the serving process with --server-pid";
}

}  // namespace execbench::load
