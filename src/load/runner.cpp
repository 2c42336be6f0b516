#include "execbench/load/runner.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/core/machine.hpp"
#include "execbench/load/limits.hpp"
#include "execbench/load/scale.hpp"
#include "execbench/load/target.hpp"

#include "http_get.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;

double ms(std::int64_t micros) { return double(micros) / 1000.0; }

/// Reads a remote server's process figures from its Prometheus /metrics.
stats::sample_source metrics_source(boost::asio::ip::tcp::endpoint ep, std::string host)
{
    return [ep, host = std::move(host)]() -> std::optional<stats::process_sample> {
        auto r = detail::http_get(ep, host, "/metrics", std::chrono::milliseconds{1000});
        if (!r || r->status != 200)
            return std::nullopt;
        return stats::parse_process_metrics(r->body);
    };
}

/// The warm-up load: the scenario's own shape for the warm-up duration; a burst warms up in closed loop on as
/// many connections.
load_spec warmup_load(const load_spec& l, duration warmup)
{
    load_spec w = l;
    if (l.kind == shape::burst) {
        w.kind = shape::closed;
        w.connections = static_cast<std::uint32_t>(l.connections ? l.connections : l.requests);
        w.think_min = w.think_max = duration{};
    }
    w.length = warmup;
    if (w.kind == shape::ramp) {
        if (w.profile == ramp_profile::stages) {
            // Squeeze the stages into the warm-up time.
            double f = double(warmup.count()) / double(std::max<std::int64_t>(1, l.length.count()));
            for (auto& st : w.stages)
                st.length = duration{static_cast<std::int64_t>(double(st.length.count()) * f)};
        } else {
            w.stages = ramp_stages(w.profile, w.users, warmup, w.spikes);
        }
    }
    return w;
}

std::uint64_t percentile_of(std::vector<std::uint64_t> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

std::string format_ms(double millis)
{
    char buf[32];
    if (millis < 10)
        std::snprintf(buf, sizeof buf, "%.2fms", millis);
    else
        std::snprintf(buf, sizeof buf, "%.0fms", millis);
    return buf;
}

}  // namespace

run_context collect_context()
{
    run_context c;
    c.execbench_version = std::string(version());
    c.git_revision = std::string(git_revision());
    c.build_type = std::string(build_type());
    c.compiler = std::string(compiler());
    c.cpu_count = std::thread::hardware_concurrency();
    c.boost_version = boost_version();
    c.cpu_governor = cpu_governor();
    c.cpu_mhz = cpu_mhz();
    c.memory_mb = memory_mb();
    c.rlimit_nofile = open_file_limit();
    c.somaxconn = somaxconn();
    c.port_range = local_port_range();
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos)
                c.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
            break;
        }
    }
    utsname u{};
    if (uname(&u) == 0) {
        c.kernel = std::string(u.sysname) + " " + u.release;
        c.hostname = u.nodename;
    }
    return c;
}

server_info probe_server(const target& t, const run_options& options)
{
    server_info info;
    info.local = t.local;
    std::optional<pid_t> reported_pid;
    if (auto h = detail::http_get(t.endpoints.front(), t.host_header, t.base_path + "/health",
                                  std::chrono::milliseconds{2000});
        h && h->status == 200) {
        info.health_json = h->body;
        auto j = nlohmann::json::parse(h->body, nullptr, false);
        if (j.is_object() && j.contains("model") && j["model"].is_string())
            info.model = j["model"].get<std::string>();
        if (j.is_object() && j.contains("pid") && j["pid"].is_number_integer())
            reported_pid = static_cast<pid_t>(j["pid"].get<long long>());
    }
    if (options.server_pid)
        info.pid = options.server_pid;
    else if (t.local)
        info.pid = reported_pid ? reported_pid : stats::find_listening_pid(t.port);
    if (info.pid)
        info.sampling = "proc";
    else if (!t.local)
        info.sampling = "metrics";
    return info;
}

bool run_result::noisy() const noexcept
{
    return std::any_of(summary.begin(), summary.end(), [](const auto& m) { return m.noisy; });
}

bool run_result::had_errors() const noexcept
{
    return std::any_of(trials.begin(), trials.end(),
                       [](const auto& t) { return t.measured.foreground.count.error_total() > 0; });
}

bool run_result::had_unsent() const noexcept
{
    return std::any_of(trials.begin(), trials.end(), [](const auto& t) { return t.measured.foreground.count.unsent > 0; });
}

const std::string& run_result::arm_name() const noexcept { return arm.name.empty() ? server.model : arm.name; }

std::size_t run_result::generator_bound_trials() const noexcept
{
    return static_cast<std::size_t>(std::count_if(trials.begin(), trials.end(), [](const auto& t) { return t.generator_bound; }));
}

std::string generator_bound_reason(const trial_result& t, unsigned threads, unsigned load_cpus)
{
    std::string why;
    // One worker thread can use one core whatever the mask says; the generator's other threads only sample.
    auto cores = std::max(1u, std::min(std::max(1u, threads), std::max(1u, load_cpus)));
    auto elapsed = std::chrono::duration<double>(t.measured.elapsed).count();
    auto cpu = elapsed > 0 ? 100.0 * t.measured.loadgen_cpu_seconds / elapsed : 0.0;
    if (cpu >= generator_cpu_bound_percent * cores) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "load generator CPU %.0f%% of %u core(s)", cpu, cores);
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
    m.emplace_back("requests_total", double(fg.count.total()));
    m.emplace_back("requests_ok", double(fg.count.ok));
    m.emplace_back("requests_error", double(fg.count.error_total()));
    m.emplace_back("wall_millis", wall_s * 1000.0);
    m.emplace_back("requests_per_second", wall_s > 0 ? double(fg.count.ok) / wall_s : 0.0);
    m.emplace_back("latency_millis_min", ms(fg.latency.min()));
    m.emplace_back("latency_millis_p50", ms(fg.latency.value_at_percentile(50)));
    m.emplace_back("latency_millis_p90", ms(fg.latency.value_at_percentile(90)));
    m.emplace_back("latency_millis_p99", ms(fg.latency.value_at_percentile(99)));
    m.emplace_back("latency_millis_p999", ms(fg.latency.value_at_percentile(99.9)));
    m.emplace_back("latency_millis_max", ms(fg.latency.max()));
    for (std::size_t i = 0; i < error_class_count; ++i)
        m.emplace_back("errors_" + std::string(to_string(static_cast<error_class>(i))), double(fg.count.errors[i]));
    m.emplace_back("requests_unsent", double(fg.count.unsent));
    m.emplace_back("service_millis_p50", ms(fg.service.value_at_percentile(50)));
    m.emplace_back("service_millis_p99", ms(fg.service.value_at_percentile(99)));
    // Per-second throughput over whole seconds only (the last, partial second would drag the figures down).
    std::vector<std::uint64_t> per_second;
    auto whole = static_cast<std::size_t>(wall_s);
    for (std::size_t i = 0; i < fg.timeline.size() && i < std::max<std::size_t>(whole, 1); ++i)
        per_second.push_back(fg.timeline[i].ok);
    m.emplace_back("per_second_requests_p50", double(percentile_of(per_second, 50)));
    m.emplace_back("per_second_requests_p90", double(percentile_of(per_second, 90)));
    m.emplace_back("per_second_requests_max",
                   per_second.empty() ? 0.0 : double(*std::max_element(per_second.begin(), per_second.end())));
    stats::process_summary s = t.server.value_or(stats::process_summary{});
    m.emplace_back("server_rss_mb_avg", s.resident_mb_avg);
    m.emplace_back("server_rss_mb_max", s.resident_mb_max);
    m.emplace_back("server_cpu_percent_avg", s.cpu_percent_avg);
    m.emplace_back("server_cpu_percent_max", s.cpu_percent_max);
    m.emplace_back("server_threads_max", double(s.threads_max));
    m.emplace_back("server_voluntary_switches", double(s.voluntary_switches));
    m.emplace_back("server_involuntary_switches", double(s.involuntary_switches));
    m.emplace_back("server_sockets_max", double(s.sockets_max));
    // How many samples the server figures above rest on: the report leaves out figures from fewer than three.
    m.emplace_back("server_samples", double(s.samples));
    auto elapsed_s = std::chrono::duration<double>(t.measured.elapsed).count();
    m.emplace_back("loadgen_cpu_seconds", t.measured.loadgen_cpu_seconds);
    m.emplace_back("loadgen_cpu_percent", elapsed_s > 0 ? 100.0 * t.measured.loadgen_cpu_seconds / elapsed_s : 0.0);
    const auto* bg = t.measured.background ? &*t.measured.background : nullptr;
    m.emplace_back("background_requests_ok", bg ? double(bg->count.ok) : 0.0);
    m.emplace_back("background_requests_error", bg ? double(bg->count.error_total()) : 0.0);
    m.emplace_back("background_latency_millis_p50", bg ? ms(bg->latency.value_at_percentile(50)) : 0.0);
    return m;
}

const std::vector<std::string>& noise_metrics()
{
    static const std::vector<std::string> names{"wall_millis", "requests_per_second", "latency_millis_p50",
                                                "latency_millis_p99"};
    return names;
}

trial_plan make_plan(const scenario& s, const target& t, const run_options& options)
{
    trial_plan p;
    p.endpoints = t.endpoints;
    for (const auto& r : s.mix)
        p.foreground.mix.push_back(prepare_request(r, t));
    p.foreground.load = s.load;
    if (s.background) {
        group_plan bg;
        for (const auto& r : s.background->mix)
            bg.mix.push_back(prepare_request(r, t));
        bg.load = s.background->load;
        p.background = std::move(bg);
        p.background_delay = s.background->delay;
    }
    p.timeout = s.timeout;
    p.connect_timeout = s.connect_timeout;
    p.threads = std::max(1u, options.threads);
    p.seed = options.seed;
    p.stop = options.stop;
    return p;
}

namespace {

bool stopping(const run_options& o) { return o.stop && o.stop->load(); }

/// Sleeps up to `d`, waking early when the run is stopped.
void pause_for(duration d, const run_options& o)
{
    auto until = clock::now() + d;
    while (!stopping(o) && clock::now() < until)
        std::this_thread::sleep_for(std::min<duration>(std::chrono::milliseconds{20}, until - clock::now()));
}

duration expected_trial_length(const scenario& s)
{
    return s.load.kind == shape::burst ? duration{} : s.load.length;
}

}  // namespace

result<run_result> run(const scenario& s, const run_options& options)
{
    if (auto v = validate(s, s.file.empty() ? "scenario" : s.file.string()); !v)
        return v.err();
    auto limit = ensure_open_files(connections_needed(s));
    if (!limit)
        return fail("scenario " + s.name + ": " + limit.err().message);
    auto tgt = resolve_target(options.url, options.allow_remote);
    if (!tgt)
        return tgt.err();

    run_result out;
    out.scenario_used = s;
    out.url = options.url;
    out.threads = std::max(1u, options.threads);
    out.context = collect_context();
    out.context.loadavg_before = load_average();
    auto cpu_before = read_cpu_times();
    out.started_at = utc_timestamp();
    {
        std::random_device rd;
        char id[64];
        std::snprintf(id, sizeof id, "%s-%04x", out.started_at.c_str(), rd() & 0xffff);
        out.run_id = id;
    }
    out.server = probe_server(*tgt, options);
    if (out.server.pid) {
        // Recorded only when the server runs on fewer CPUs than this process may use: "" means not pinned.
        auto server_cpus = execbench::allowed_cpus_of(*out.server.pid);
        if (!server_cpus.empty() && server_cpus != format_cpu_list(allowed_cpus()))
            out.affinity.server = server_cpus;
    }

    auto plan = make_plan(s, *tgt, options);
    auto run_start = clock::now();
    auto emit = [&](progress_event ev) {
        if (!options.on_progress)
            return;
        ev.scenario = s.name;
        ev.model = out.server.model;
        ev.trials = s.trials;
        ev.elapsed = clock::now() - run_start;
        ev.run = &out;
        options.on_progress(ev);
    };

    // Runs the engine on its own thread and reports live progress from this one.
    duration observed_trial{};
    auto run_engine = [&](const trial_plan& tp, progress_event::phase ph, unsigned index) {
        live_counters live;
        trial_plan p = tp;
        p.live = &live;
        auto fut = std::async(std::launch::async, [&p] { return run_trial(p); });
        auto last_ok = std::uint64_t{0};
        auto last_at = clock::now();
        auto trial_start = last_at;
        while (fut.wait_for(std::chrono::milliseconds{250}) != std::future_status::ready) {
            auto now = clock::now();
            auto ok = live.ok.load();
            progress_event ev;
            ev.what = ph;
            ev.trial = index;
            ev.ok = ok;
            ev.errors = live.errors.load();
            ev.live_rps = double(ok - last_ok) / std::chrono::duration<double>(now - last_at).count();
            auto per_trial = ph == progress_event::phase::warmup ? s.warmup
                             : expected_trial_length(s).count() > 0 ? expected_trial_length(s)
                                                                    : observed_trial;
            auto in_this = now - trial_start;
            auto left_here = per_trial > in_this ? per_trial - in_this : duration{};
            auto trials_after = ph == progress_event::phase::warmup ? s.trials : s.trials - index;
            ev.remaining = left_here + trials_after * (std::max(per_trial, observed_trial) + s.pause);
            emit(ev);
            last_ok = ok;
            last_at = now;
        }
        return fut.get();
    };

    if (s.warmup.count() > 0 && !stopping(options)) {
        trial_plan w = plan;
        w.foreground.load = warmup_load(s.load, s.warmup);
        if (w.background)
            w.background->load = warmup_load(w.background->load, s.warmup);
        (void)run_engine(w, progress_event::phase::warmup, 0);
        if (!stopping(options)) {
            progress_event ev;
            ev.what = progress_event::phase::pause;
            emit(ev);
            pause_for(s.pause, options);
        }
    }

    for (unsigned i = 1; i <= s.trials && !stopping(options); ++i) {
        if (i > 1) {
            progress_event ev;
            ev.what = progress_event::phase::pause;
            ev.trial = i - 1;
            emit(ev);
            pause_for(s.pause, options);
            if (stopping(options))
                break;
        }
        std::unique_ptr<stats::periodic_sampler> sampler;
        if (out.server.pid)
            sampler = std::make_unique<stats::periodic_sampler>(stats::proc_source(*out.server.pid),
                                                                options.sample_period);
        else if (!tgt->local)
            sampler = std::make_unique<stats::periodic_sampler>(
                metrics_source(tgt->endpoints.front(), tgt->host_header),
                std::max(options.sample_period, std::chrono::milliseconds{200}));
        if (sampler)
            sampler->start();
        trial_result tr;
        tr.index = i;
        tr.measured = run_engine(plan, progress_event::phase::trial, i);
        observed_trial = tr.measured.elapsed;
        if (sampler) {
            auto readings = sampler->stop();
            if (!readings.empty())
                tr.server = stats::summarize_readings(readings, sampler->period());
        }
        tr.generator_bound_reason =
            generator_bound_reason(tr, out.threads, options.load_cpus ? options.load_cpus : usable_cpu_count());
        tr.generator_bound = !tr.generator_bound_reason.empty();
        bool stopped = tr.measured.stopped;
        out.trials.push_back(std::move(tr));
        progress_event ev;
        ev.what = progress_event::phase::trial_done;
        ev.trial = i;
        ev.finished = &out.trials.back();
        ev.ok = out.trials.back().measured.foreground.count.ok;
        ev.errors = out.trials.back().measured.foreground.count.error_total();
        emit(ev);
        if (stopped)
            break;
    }
    out.partial = stopping(options) || out.trials.size() < s.trials;
    out.context.loadavg_after = load_average();
    if (auto cpu_after = read_cpu_times(); cpu_before && cpu_after)
        out.context.steal_percent = steal_percent(*cpu_before, *cpu_after);

    summarize_trials(out);
    progress_event done;
    done.what = progress_event::phase::done;
    done.trial = static_cast<unsigned>(out.trials.size());
    emit(done);
    return out;
}

void summarize_trials(run_result& out)
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
        m.noisy = counted > 1 &&
                  std::find(noisy_names.begin(), noisy_names.end(), m.name) != noisy_names.end() &&
                  stats::is_noisy(m.spread);
        out.summary.push_back(std::move(m));
    }
}

namespace {

double metric(const std::vector<std::pair<std::string, double>>& m, std::string_view name)
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
        auto n = metric(m, "errors_" + name);
        if (n > 0)
            out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(static_cast<std::uint64_t>(std::llround(n)));
    }
    return out.empty() ? out : " (" + out + ")";
}

std::string line_of(const std::vector<std::pair<std::string, double>>& m, bool server_sampled)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, "total=%.0f ok=%.0f errors=%.0f", metric(m, "requests_total"),
                  metric(m, "requests_ok"), metric(m, "requests_error"));
    std::string out = buf + error_classes_of(m);
    out += " wall=" + format_ms(metric(m, "wall_millis"));
    if (metric(m, "requests_ok") > 0) {
        std::snprintf(buf, sizeof buf, " rps=%.0f p50=%s p99=%s", metric(m, "requests_per_second"),
                      format_ms(metric(m, "latency_millis_p50")).c_str(),
                      format_ms(metric(m, "latency_millis_p99")).c_str());
        out += buf;
    } else {
        out += " no successful requests";  // 0 ms percentiles would read as a perfect latency
    }
    if (server_sampled) {
        std::snprintf(buf, sizeof buf, " rss_max=%.0fMiB cpu=%.0f%%", metric(m, "server_rss_mb_max"),
                      metric(m, "server_cpu_percent_avg"));
        out += buf;
    }
    std::snprintf(buf, sizeof buf, " load_cpu=%.0f%%", metric(m, "loadgen_cpu_percent"));
    out += buf;
    if (metric(m, "requests_unsent") > 0) {
        std::snprintf(buf, sizeof buf, " unsent=%.0f", metric(m, "requests_unsent"));
        out += buf;
    }
    if (metric(m, "background_requests_ok") + metric(m, "background_requests_error") > 0) {
        std::snprintf(buf, sizeof buf, " background_ok=%.0f background_errors=%.0f", metric(m, "background_requests_ok"),
                      metric(m, "background_requests_error"));
        out += buf;
    }
    return out;
}

}  // namespace

std::string format_trial_line(const run_result& r, const trial_result& t)
{
    return r.arm_name() + " " + r.scenario_used.name + " trial " + std::to_string(t.index) + "/" +
           std::to_string(r.scenario_used.trials) + ": " + line_of(trial_metrics(t), t.server.has_value()) +
           (t.measured.stopped ? " (stopped)" : "") +
           (t.generator_bound ? " GENERATOR-BOUND(" + t.generator_bound_reason + ")" : "");
}

std::string format_summary_line(const run_result& r)
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
    return out;
}

namespace {

/// The fields both JSON records start with.
nlohmann::ordered_json json_head(const run_result& r, std::string_view type)
{
    const auto& s = r.scenario_used;
    nlohmann::ordered_json j;
    j["type"] = type;
    j["run_id"] = r.run_id;
    j["scenario"] = s.name;
    j["model"] = r.server.model;
    j["url"] = r.url;
    j["shape"] = to_string(s.load.kind);
    j["connections"] = s.load.connections;
    if (s.load.kind == shape::open)
        j["rate"] = s.load.rate;
    if (s.load.kind == shape::burst)
        j["requests"] = s.load.requests;
    if (s.load.kind != shape::burst)
        j["duration_millis"] = std::chrono::duration<double, std::milli>(s.load.length).count();
    j["trials"] = s.trials;
    return j;
}

/// {"connect_refused": 600}: the error classes that occurred.
nlohmann::ordered_json json_errors(const std::vector<std::pair<std::string, double>>& m)
{
    auto j = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < error_class_count; ++i) {
        auto name = std::string(to_string(static_cast<error_class>(i)));
        if (auto n = metric(m, "errors_" + name); n > 0)
            j[name] = n;
    }
    return j;
}

/// A metric value, or null for a latency nothing was measured for.
nlohmann::ordered_json json_value(const std::string& name, double v, bool any_ok)
{
    if (!any_ok && name.rfind("latency_", 0) == 0)
        return nullptr;
    return v;
}

}  // namespace

std::string format_trial_json(const run_result& r, const trial_result& t)
{
    auto j = json_head(r, "trial");
    j["trial"] = t.index;
    auto m = trial_metrics(t);
    bool any_ok = metric(m, "requests_ok") > 0;
    auto metrics = nlohmann::ordered_json::object();
    for (const auto& [name, v] : m)
        metrics[name] = json_value(name, v, any_ok);
    j["metrics"] = std::move(metrics);
    j["errors"] = json_errors(m);
    j["server_sampled"] = t.server.has_value();
    j["stopped"] = t.measured.stopped;
    return j.dump();
}

std::string format_summary_json(const run_result& r, const std::vector<slo_verdict>& slo)
{
    auto j = json_head(r, "summary");
    j["trials_run"] = r.trials.size();
    std::vector<std::pair<std::string, double>> medians;
    for (const auto& m : r.summary)
        medians.emplace_back(m.name, m.spread.median);
    bool any_ok = metric(medians, "requests_ok") > 0;
    auto median = nlohmann::ordered_json::object(), min = nlohmann::ordered_json::object(), max = nlohmann::ordered_json::object();
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
            gates.push_back({{"gate", v.gate},
                             {"metric", v.metric},
                             {"measured", v.measurable ? nlohmann::ordered_json(v.measured) : nlohmann::ordered_json(nullptr)},
                             {"passed", v.passed}});
        j["slo"] = std::move(gates);
    }
    return j.dump();
}

}  // namespace execbench::load
