#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The results' shape in one header: each metric's and CSV column's name, spelled here once, and what each metric
// is (label, unit, which way is better, what lets it rank arms, and the formula of a derived one).
//
// load/run/trial_metrics.cpp and load/results/results.cpp write the names, `--format json` and `--slo` use them,
// and report/ reads them back from the CSV files. Committed results carry these spellings, so a name here never
// changes; docs/results-format.md documents each.

/// Per-trial metrics: the columns of x-trials.csv, and of x.csv as the median across trials.
namespace execbench::load::metric {

inline constexpr std::string_view requests_total = "requests_total";
inline constexpr std::string_view requests_ok = "requests_ok";
inline constexpr std::string_view requests_error = "requests_error";
inline constexpr std::string_view wall_millis = "wall_millis";
inline constexpr std::string_view requests_per_second = "requests_per_second";
inline constexpr std::string_view latency_millis_min = "latency_millis_min";
inline constexpr std::string_view latency_millis_p50 = "latency_millis_p50";
inline constexpr std::string_view latency_millis_p90 = "latency_millis_p90";
inline constexpr std::string_view latency_millis_p99 = "latency_millis_p99";
inline constexpr std::string_view latency_millis_p999 = "latency_millis_p999";
inline constexpr std::string_view latency_millis_max = "latency_millis_max";
inline constexpr std::string_view requests_unsent = "requests_unsent";
inline constexpr std::string_view service_millis_p50 = "service_millis_p50";
inline constexpr std::string_view service_millis_p99 = "service_millis_p99";
// Connections the trial opened and how long each took to become usable (TCP connect and, over TLS, the handshake):
// what connection churn (--reconnect-every) and TLS cost per connection.
inline constexpr std::string_view connect_millis_mean = "connect_millis_mean";
inline constexpr std::string_view connect_millis_p50 = "connect_millis_p50";
inline constexpr std::string_view connect_millis_p99 = "connect_millis_p99";
/// Connections established, pre-connected ones included; over TLS, one handshake each.
inline constexpr std::string_view connections_opened = "connections_opened";
/// connections_opened per second of the trial's wall time: under churn, the handshakes per second.
inline constexpr std::string_view connections_per_second = "connections_per_second";
inline constexpr std::string_view tls_handshakes_full = "tls_handshakes_full";
inline constexpr std::string_view tls_handshakes_resumed = "tls_handshakes_resumed";
inline constexpr std::string_view per_second_requests_p50 = "per_second_requests_p50";
inline constexpr std::string_view per_second_requests_p90 = "per_second_requests_p90";
inline constexpr std::string_view per_second_requests_max = "per_second_requests_max";
inline constexpr std::string_view server_rss_mb_avg = "server_rss_mb_avg";
inline constexpr std::string_view server_rss_mb_max = "server_rss_mb_max";
inline constexpr std::string_view server_cpu_percent_avg = "server_cpu_percent_avg";
inline constexpr std::string_view server_cpu_percent_max = "server_cpu_percent_max";
inline constexpr std::string_view server_threads_max = "server_threads_max";
inline constexpr std::string_view server_voluntary_switches = "server_voluntary_switches";
inline constexpr std::string_view server_involuntary_switches = "server_involuntary_switches";
inline constexpr std::string_view server_sockets_max = "server_sockets_max";
/// The server's RSS growth per connection the trial opened (stats::process_summary::resident_bytes_per_socket).
inline constexpr std::string_view server_rss_bytes_per_connection = "server_rss_bytes_per_connection";
inline constexpr std::string_view server_samples = "server_samples";
/// Derived by the report from each trial (cpu_seconds_per_1k_requests below), never written to a CSV.
inline constexpr std::string_view server_cpu_seconds_per_1k_requests = "server_cpu_seconds_per_1k_requests";
inline constexpr std::string_view loadgen_cpu_seconds = "loadgen_cpu_seconds";
inline constexpr std::string_view loadgen_cpu_percent = "loadgen_cpu_percent";
/// The part of loadgen_cpu_seconds spent sampling the server (the observer effect).
inline constexpr std::string_view loadgen_sampler_cpu_seconds = "loadgen_sampler_cpu_seconds";
inline constexpr std::string_view background_requests_ok = "background_requests_ok";
inline constexpr std::string_view background_requests_error = "background_requests_error";
inline constexpr std::string_view background_latency_millis_p50 = "background_latency_millis_p50";
// The kernel's TCP counters over the trial (load/kernel_counters.hpp), of the whole network namespace.
inline constexpr std::string_view kernel_listen_overflows = "kernel_listen_overflows";
inline constexpr std::string_view kernel_listen_drops = "kernel_listen_drops";
inline constexpr std::string_view kernel_syn_retransmits = "kernel_syn_retransmits";
inline constexpr std::string_view kernel_tcp_timeouts = "kernel_tcp_timeouts";
inline constexpr std::string_view kernel_active_opens = "kernel_active_opens";
inline constexpr std::string_view kernel_passive_opens = "kernel_passive_opens";
inline constexpr std::string_view kernel_resets_sent = "kernel_resets_sent";
inline constexpr std::string_view kernel_aborts = "kernel_aborts";
inline constexpr std::string_view kernel_time_wait = "kernel_time_wait";  ///< TIME_WAIT sockets at the trial's end
// What bench-server's downstream client did over the trial (its /metrics read before and after the trial).
inline constexpr std::string_view downstream_calls = "downstream_calls";
inline constexpr std::string_view downstream_connections_opened = "downstream_connections_opened";
inline constexpr std::string_view downstream_connections_reused = "downstream_connections_reused";
inline constexpr std::string_view downstream_pool_waits = "downstream_pool_waits";
inline constexpr std::string_view downstream_pool_timeouts = "downstream_pool_timeouts";
inline constexpr std::string_view downstream_pool_rejections = "downstream_pool_rejections";
/// The mean wait of a call for a connection under --downstream-connections, over every call of the trial.
inline constexpr std::string_view downstream_wait_millis_mean = "downstream_wait_millis_mean";

/// The prefix of the per-class error columns: errors_<class> for each load::error_class.
inline constexpr std::string_view errors_prefix = "errors_";
/// The column of one error class, e.g. "errors_connect_refused".
inline std::string errors_column(std::string_view error_class_name)
{
    return std::string(errors_prefix).append(error_class_name);
}
/// Whether `column` is one of the per-class error columns.
inline bool is_errors_column(std::string_view column) noexcept
{
    return column.starts_with(errors_prefix);
}

/// The lowest trial value beside a median in x.csv, e.g. "wall_millis_trial_min".
inline std::string trial_min(std::string_view metric)
{
    return std::string(metric).append("_trial_min");
}
/// The highest trial value beside a median in x.csv, e.g. "wall_millis_trial_max".
inline std::string trial_max(std::string_view metric)
{
    return std::string(metric).append("_trial_max");
}

}  // namespace execbench::load::metric

/// The other columns the results files share with their readers: identity, status and the load settings.
namespace execbench::load::column {

inline constexpr std::string_view run_id = "run_id";
inline constexpr std::string_view scenario = "scenario";
inline constexpr std::string_view model = "model";
inline constexpr std::string_view arm = "arm";
inline constexpr std::string_view trials = "trials";
inline constexpr std::string_view trial = "trial";
inline constexpr std::string_view second = "second";
inline constexpr std::string_view stopped = "stopped";
inline constexpr std::string_view generator_bound = "generator_bound";
inline constexpr std::string_view generator_bound_trials = "generator_bound_trials";
inline constexpr std::string_view noisy = "noisy";
inline constexpr std::string_view noisy_metrics = "noisy_metrics";
inline constexpr std::string_view partial = "partial";
inline constexpr std::string_view scale = "scale";
/// The share of its timeline a run took (--time-scale): 1 as written.
inline constexpr std::string_view time_scale = "time_scale";
inline constexpr std::string_view shape = "shape";
inline constexpr std::string_view connections = "connections";
inline constexpr std::string_view requests = "requests";
inline constexpr std::string_view rate = "rate";
inline constexpr std::string_view duration = "duration";
inline constexpr std::string_view think = "think";
inline constexpr std::string_view warmup = "warmup";
// Where and how a run ran: x.csv's context columns, also the keys of x-context.jsonl that carry the same figure.
inline constexpr std::string_view started_at = "started_at";
inline constexpr std::string_view url = "url";
inline constexpr std::string_view loadgen_threads = "loadgen_threads";
inline constexpr std::string_view timeout = "timeout";
inline constexpr std::string_view server_sampling = "server_sampling";
inline constexpr std::string_view server_health = "server_health";
inline constexpr std::string_view execbench_version = "execbench_version";
inline constexpr std::string_view git_revision = "git_revision";
inline constexpr std::string_view build_type = "build_type";
inline constexpr std::string_view compiler = "compiler";
inline constexpr std::string_view cpu_model = "cpu_model";
inline constexpr std::string_view cpu_count = "cpu_count";
inline constexpr std::string_view kernel = "kernel";
/// 1 when the run's load went over TLS (an https:// URL), 0 for cleartext: what tells a TLS row from another.
inline constexpr std::string_view tls = "tls";
/// The HTTP the run's load spoke: "http/1.1" or "h2" (HTTP/2, h2c in cleartext).
inline constexpr std::string_view protocol = "protocol";
/// HTTP/2: the requests each connection carried at once (--streams); 1 under HTTP/1.1.
inline constexpr std::string_view streams = "streams";
// The schema version each row was written in (load/record/schema.hpp), the last column of every results CSV.
inline constexpr std::string_view schema = "schema";
// Per-second timeline columns a shape may leave empty.
inline constexpr std::string_view target_rate = "target_rate";
inline constexpr std::string_view users = "users";
inline constexpr std::string_view users_target = "users_target";
inline constexpr std::string_view connections_open = "connections_open";
inline constexpr std::string_view requests_in_flight = "requests_in_flight";

}  // namespace execbench::load::column

// What each metric of the results is, written once: its column, the label every page, verdict and comparison shows,
// its unit, which way is better and what decides whether it can rank arms. report/ (winners, compare, the pages,
// the headline and the charts) reads these rows rather than restating them.
namespace execbench::load {

/// Which way a metric is better.
enum class better { higher, lower };

/// What decides whether a metric can rank arms at all.
enum class metric_source {
    requests,        ///< counted by the load generator: always measured
    per_second,      ///< over whole seconds of the trial: one bucket in a trial under 2 s says nothing
    server_sampled,  ///< from the server samples: needs enough samples per trial
    /// From the server samples and growing with the work done (CPU max, memory, context switches): ranks only where
    /// every arm completed the same number of requests.
    server_equal_work,
    client_set,  ///< set by the load generator's own settings (sockets = its connections): never ranked
    evidence,    ///< shown beside the figures (the kernel's counters, the generator's CPU), never a verdict
};

/// One metric of the results.
struct metric_info {
    std::string column;  ///< its CSV column, e.g. "latency_millis_p99" (above)
    std::string label;   ///< e.g. "latency p99"
    std::string unit;    ///< e.g. "ms"; "" for a count
    better direction = better::lower;
    metric_source source = metric_source::requests;
    /// Ranked in the winners table (every metric whose source can decide, and sockets, listed as never ranked).
    [[nodiscard]] bool ranked() const noexcept { return source != metric_source::evidence; }
};

/// Every metric with a label, in the order the winners table lists the ranked ones.
const std::vector<metric_info>& metric_table();

/// The row of `column`; throws std::out_of_range for a column the table does not hold (a programming error).
const metric_info& metric_of(std::string_view column);

/// The derived metric `metric::server_cpu_seconds_per_1k_requests` of one trial: the server's average CPU over the
/// wall time, per 1,000 ok requests. Nothing when nothing was served, the server was not sampled, or it used less CPU
/// than the sampler resolves (a short burst): no figure, rather than a division by zero or a tie of zeros.
std::optional<double> cpu_seconds_per_1k_requests(double cpu_percent_avg, double wall_millis, double requests_ok);

}  // namespace execbench::load
