#include "execbench/load/run/runner.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/core/machine.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/scenario/open_files.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <random>
#include <thread>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;

/// The warm-up load: the scenario's own shape for the warm-up duration; a burst warms up in closed loop on as
/// many connections.
load_spec warmup_load(const load_spec& l, duration warmup)
{
    load_spec w = l;
    if (l.kind == shape::burst) {
        w.kind = shape::closed;
        w.connections = static_cast<std::uint32_t>(connections_of(l));
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

}  // namespace

trial_plan make_plan(const scenario& s, const target& t, const run_options& options)
{
    trial_plan p;
    p.endpoints = t.endpoints;
    p.tls = t.tls.get();
    p.tls_host = t.host;
    p.tls_resume = s.tls_resume;
    p.http2 = s.protocol == http_protocol::h2;
    p.streams = s.streams;
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
    p.graceful_stop = s.graceful_stop;
    p.threads = std::max(1u, options.threads);
    p.seed = options.seed;
    p.stop = options.stop;
    return p;
}

namespace {

bool stopping(const run_options& o)
{
    return o.stop && o.stop->load();
}

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

result<run_target> open_target(const run_options& options)
{
    auto where = resolve_target(options.url, options.allow_remote, options.tls);
    if (!where)
        return where.err();
    auto server = probe_server(*where, options.server_pid);
    return run_target{std::move(*where), std::move(server)};
}

run_record start_run_record(const scenario& s, const run_options& options, const run_target& t)
{
    run_record out;
    out.scenario_used = s;
    out.url = options.url;
    out.threads = std::max(1u, options.threads);
    out.context = collect_context();
    out.context.loadavg_before = load_average();
    out.started_at = utc_timestamp();
    {
        std::random_device rd;
        char id[64];
        std::snprintf(id, sizeof id, "%s-%04x", out.started_at.c_str(), rd() & 0xffff);
        out.run_id = id;
    }
    out.server = t.server;
    if (out.server.pid) {
        // Recorded only when the server runs on fewer CPUs than this process may use: "" means not pinned.
        auto server_cpus = execbench::allowed_cpus_of(*out.server.pid);
        if (!server_cpus.empty() && server_cpus != format_cpu_list(allowed_cpus()))
            out.affinity.server = server_cpus;
    }
    return out;
}

void finish_run_record(run_record& r, const std::optional<cpu_times>& cpu_before)
{
    r.context.loadavg_after = load_average();
    if (auto cpu_after = read_cpu_times(); cpu_before && cpu_after)
        r.context.steal_percent = steal_percent(*cpu_before, *cpu_after);
    summarize_trials(r);
}

result<run_record> run(const scenario& s, const run_options& options)
{
    auto t = open_target(options);
    if (!t)
        return t.err();
    return run(s, options, *t);
}

namespace {

/// One run's trials as they happen: the engine on its own thread, progress from this one, the server sampled and
/// the kernel's counters read around each measured trial.
class run_driver {
public:
    run_driver(const scenario& s, const run_options& options, const run_target& t, run_record& out)
        : s_(s), options_(options), t_(t), out_(out), plan_(make_plan(s, t.where, options))
    {
    }

    /// The warm-up (not recorded) and the pause after it.
    void warm_up()
    {
        if (s_.warmup.count() <= 0 || stopping(options_))
            return;
        trial_plan w = plan_;
        w.foreground.load = warmup_load(s_.load, s_.warmup);
        if (w.background)
            w.background->load = warmup_load(w.background->load, s_.warmup);
        (void)engine(w, progress_event::phase::warmup, 0);
        if (!stopping(options_))
            pause(0);
    }

    /// The measured trials, with a pause between them; stops early on a stop request or a trial cut short.
    void trials()
    {
        for (unsigned i = 1; i <= s_.trials && !stopping(options_); ++i) {
            if (i > 1) {
                pause(i - 1);
                if (stopping(options_))
                    break;
            }
            if (!trial(i))
                break;
        }
    }

    void done()
    {
        progress_event ev;
        ev.what = progress_event::phase::done;
        ev.trial = static_cast<unsigned>(out_.trials.size());
        emit(ev);
    }

private:
    void emit(progress_event ev) const
    {
        if (!options_.on_progress)
            return;
        ev.scenario = s_.name;
        ev.label = options_.label.empty() ? out_.server.model : options_.label;
        ev.trials = s_.trials;
        ev.elapsed = clock::now() - start_;
        ev.run = &out_;
        options_.on_progress(ev);
    }

    void pause(unsigned after_trial)
    {
        progress_event ev;
        ev.what = progress_event::phase::pause;
        ev.trial = after_trial;
        emit(ev);
        pause_for(s_.pause, options_);
    }

    /// Runs the engine on its own thread and reports live progress from this one.
    trial_measurement engine(const trial_plan& tp, progress_event::phase ph, unsigned index)
    {
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
            auto per_trial = ph == progress_event::phase::warmup     ? s_.warmup
                             : expected_trial_length(s_).count() > 0 ? expected_trial_length(s_)
                                                                     : observed_trial_;
            auto in_this = now - trial_start;
            auto left_here = per_trial > in_this ? per_trial - in_this : duration{};
            auto trials_after = ph == progress_event::phase::warmup ? s_.trials : s_.trials - index;
            ev.remaining = left_here + trials_after * (std::max(per_trial, observed_trial_) + s_.pause);
            emit(ev);
            last_ok = ok;
            last_at = now;
        }
        return fut.get();
    }

    /// What the server's downstream client has done so far, from its /metrics; nothing from a server that does not
    /// say (not bench-server, or no answer within a second).
    std::optional<stats::downstream_reading> read_downstream()
    {
        // Only a server whose /health names its downstream client counts them: no request to any other.
        if (!reports_downstream_)
            return std::nullopt;
        auto r = detail::http_get(detail::request_peer::of(t_.where), t_.where.base_path + "/metrics",
                                  std::chrono::milliseconds{1000});
        if (!r || r->status != 200)
            return std::nullopt;
        return stats::parse_downstream_metrics(r->body);
    }

    /// Trial i, recorded in the run; false when it was cut short.
    bool trial(unsigned i)
    {
        auto sampler = server_sampler(out_.server, t_.where, options_.sample_period);
        if (sampler)
            sampler->start();
        trial_result tr;
        tr.index = i;
        auto kernel_before = read_kernel_counters();
        auto downstream_before = read_downstream();
        if (options_.before_trial)
            options_.before_trial();
        tr.measured = engine(plan_, progress_event::phase::trial, i);
        if (options_.after_trial)
            options_.after_trial();
        if (auto kernel_after = read_kernel_counters(); kernel_before && kernel_after)
            tr.kernel = kernel_difference(*kernel_before, *kernel_after);
        if (auto downstream_after = read_downstream(); downstream_before && downstream_after)
            tr.downstream = stats::difference(*downstream_after, *downstream_before);
        observed_trial_ = tr.measured.elapsed;
        std::vector<stats::timed_sample> readings;
        if (sampler) {
            readings = sampler->stop();
            tr.sampler_cpu_seconds = sampler->cpu_seconds();
            if (!readings.empty())
                tr.server = stats::summarize_readings(readings, sampler->period());
        }
        tr.generator_bound_reason =
            generator_bound_reason(tr, out_.threads, options_.load_cpus ? options_.load_cpus : usable_cpu_count());
        tr.generator_bound = !tr.generator_bound_reason.empty();
        bool stopped = tr.measured.stopped;
        out_.trials.push_back(std::move(tr));
        progress_event ev;
        ev.what = progress_event::phase::trial_done;
        ev.trial = i;
        ev.finished = &out_.trials.back();
        ev.server_readings = &readings;
        ev.ok = out_.trials.back().measured.foreground.count.ok;
        ev.errors = out_.trials.back().measured.foreground.count.error_total();
        emit(ev);
        return !stopped;
    }

    const scenario& s_;
    const run_options& options_;
    const run_target& t_;
    run_record& out_;
    trial_plan plan_;
    clock::time_point start_ = clock::now();
    duration observed_trial_{};
    bool reports_downstream_ = t_.server.health_fields().contains("downstreamClient");
};

}  // namespace

result<run_record> run(const scenario& s, const run_options& options, const run_target& t)
{
    if (s.load.rate_from && !(s.load.rate > 0))
        return fail("scenario " + s.name + ": load.rate is " + describe(*s.load.rate_from) +
                    ", a rate per arm that bench-suite takes from the capacity searches (--capacity-from); give "
                    "--rate to run it on its own");
    if (s.background && s.background->load.rate_from && !(s.background->load.rate > 0))
        return fail("scenario " + s.name + ": background.load.rate is " + describe(*s.background->load.rate_from) +
                    ", a rate per arm that bench-suite takes from the capacity searches (--capacity-from)");
    if (s.tls && !t.where.tls)
        return fail("scenario " + s.name + " runs over TLS (\"tls\": true), but " + options.url +
                    " is not https://; start the server with --tls and give its https:// URL");
    auto limit = ensure_open_files(connections_needed(s));
    if (!limit)
        return fail("scenario " + s.name + ": " + limit.err().message);
    auto cpu_before = read_cpu_times();
    run_record out = start_run_record(s, options, t);
    run_driver driver(s, options, t, out);
    driver.warm_up();
    driver.trials();
    out.partial = stopping(options) || out.trials.size() < s.trials;
    finish_run_record(out, cpu_before);
    driver.done();
    return out;
}

}  // namespace execbench::load
