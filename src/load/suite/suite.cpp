#include "execbench/load/suite/suite.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/file.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/hlog.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/capacity.hpp"
#include "execbench/load/run/metric_names.hpp"
#include "execbench/load/run/preflight.hpp"
#include "execbench/load/run/trial_metrics.hpp"
#include "execbench/load/scenario/open_files.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/load/suite/postgres_cluster.hpp"
#include "execbench/stats/sampler.hpp"

#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/server_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;
using detail::csv_field;

}  // namespace

std::vector<std::string> server_option_args(const server_spec& spec)
{
    std::vector<std::string> out;
    for (const auto& [name, value] : spec.options)
        append_server_flag(out, name, value);
    return out;
}

std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-server-timeline.csv");
}

std::vector<std::string> scenarios_in_suite(const std::filesystem::path& dir, std::string_view suite)
{
    std::vector<std::string> out;
    for (const auto& e : list_scenarios(dir))
        if (std::find(e.suites.begin(), e.suites.end(), suite) != e.suites.end())
            out.push_back(e.name);
    return out;
}

std::string_view to_string(trial_order o) noexcept
{
    return o == trial_order::blocked ? "blocked" : "interleaved";
}

std::optional<trial_order> parse_trial_order(std::string_view text) noexcept
{
    for (auto o : {trial_order::interleaved, trial_order::blocked})
        if (to_string(o) == text)
            return o;
    return std::nullopt;
}

std::vector<std::size_t> round_order(std::size_t arms, std::uint64_t seed, unsigned round)
{
    std::vector<std::size_t> out(arms);
    for (std::size_t i = 0; i < arms; ++i)
        out[i] = i;
    // mt19937_64's output is fixed by the standard (std::shuffle's use of it is not), so the same seed gives the
    // same order with every standard library.
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + round);
    for (std::size_t i = arms; i > 1; --i)
        std::swap(out[i - 1], out[rng() % i]);
    return out;
}

namespace {

/// A rough length of one server run of `trials` trials, for the remaining-time estimate.
duration estimate(const scenario& s, unsigned trials)
{
    auto per_trial = s.load.kind == shape::burst ? duration{std::chrono::seconds{2}} : s.load.length;
    auto pauses = (trials > 0 ? trials - 1 : 0) + (s.warmup.count() > 0 ? 1 : 0);
    return s.warmup + std::int64_t(trials) * per_trial + std::int64_t(pauses) * s.pause + std::chrono::seconds{2};
}

std::string error_summary(const run_result& r)
{
    std::string out;
    for (const auto& m : r.summary) {
        bool error_column = metric::is_errors_column(m.name) || m.name == metric::requests_unsent;
        if (!error_column || m.spread.max <= 0)
            continue;
        out += (out.empty() ? "" : ", ") + m.name + "=" + fixed(m.spread.median, 0);
        if (m.spread.max != m.spread.median)
            out += " (max " + fixed(m.spread.max, 0) + ")";
    }
    return out;
}

void add_note(std::string& to, const std::string& note)
{
    if (!note.empty())
        to += (to.empty() ? "" : "; ") + note;
}

/// What one server lifetime produced: why it did not run, or its result with the server's samples.
struct run_outcome {
    run_status status = run_status::failed;  ///< when there is no result: failed or not_run
    std::string message;                     ///< the failure, or notes beside a result (stop problems)
    std::optional<run_result> result;
    detail::sampled_server sampled;
};

/// The open-file check before a run: why the scenario cannot run here, or nothing. With `fit`, a scenario beyond
/// the limits is replaced by itself scaled to the largest factor that fits, labelled (load/scale.hpp).
std::optional<std::string> beyond_open_files(scenario& s, bool fit)
{
    // Open files: the generator runs in this process, the servers in its children; none can go beyond the hard
    // limit, so a scenario beyond it is reported, or with --fit-to-limits run scaled and labelled.
    auto fitted = fit_open_files(s, fit);
    if (!fitted)
        return fitted.err().message;
    s = std::move(*fitted);
    return std::nullopt;
}

/// The CPU lists every run of a suite uses.
struct pinning {
    affinity_record text;     ///< as recorded in the context ("" when not pinned)
    std::string server_cpus;  ///< passed as --cpus ("" when the server keeps the inherited mask)
    std::string downstream_cpus;
    unsigned load_cpu_count = 0;
};

/// A fresh server for one arm (and a fresh downstream server and database when the scenario asks for them), the
/// run options aimed at it, then the servers stopped. `body(run_options&, const server_process&)` does the load.
/// Returns what went wrong starting (`started` false) or stopping them.
struct servers_outcome {
    bool started = false;
    std::string message;
};

template <class Body>
servers_outcome with_servers(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                             Body&& body)
{
    servers_outcome out;
    auto deadline_of = [&] { return clock::now() + o.start_timeout; };
    server_process downstream;
    postgres_cluster database;
    server_process server;
    std::vector<std::string> args = arm_server_args(a);
    args.insert(args.end(), {"--host", "127.0.0.1"});
    if (!pins.server_cpus.empty())
        args.insert(args.end(), {"--cpus", pins.server_cpus});
    auto extra = server_option_args(s.server);
    args.insert(args.end(), extra.begin(), extra.end());
    if (s.server.downstream == "separate") {
        std::vector<std::string> dargs{"--model", s.server.downstream_model, "--host", "127.0.0.1"};
        if (!pins.downstream_cpus.empty())
            dargs.insert(dargs.end(), {"--cpus", pins.downstream_cpus});
        auto started = downstream.start(o.server_binary, dargs, deadline_of());
        if (!started) {
            out.message = "downstream " + started.err().message;
            return out;
        }
        args.emplace_back("--downstream");
        args.push_back(downstream.url());
    }
    if (s.server.database == "postgresql") {
        if (auto started = database.start(); !started) {
            (void)downstream.stop(o.stop_timeout);
            out.message = "PostgreSQL " + started.err().message;
            return out;
        }
        args.emplace_back("--movies-db");
        args.push_back(database.url());
    }
    // A file on disk, so that a commit can wait for it; fresh for every run, removed with it.
    std::optional<scratch_dir> database_file;
    if (s.server.database == "sqlite-file") {
        database_file.emplace("execbench-movies");
        if (database_file->path().empty()) {
            (void)downstream.stop(o.stop_timeout);
            out.message = "cannot create a temporary folder for the movies file";
            return out;
        }
        args.emplace_back("--movies-db");
        args.push_back((database_file->path() / "movies.db").string());
    }
    if (auto started = server.start(o.server_binary, args, deadline_of()); !started) {
        (void)downstream.stop(o.stop_timeout);
        out.message = started.err().message;
        return out;
    }
    out.started = true;

    run_options ro;
    ro.url = server.url();
    ro.threads = o.threads;
    ro.server_pid = server.pid();
    ro.stop = o.stop;
    ro.load_cpus = pins.load_cpu_count;
    ro.sample_period = o.server_sample_period;
    body(ro, server);

    if (auto st = server.stop(o.stop_timeout); !st)
        out.message = st.err().message;
    if (auto st = downstream.stop(o.stop_timeout); !st)
        out.message += (out.message.empty() ? "downstream " : "; downstream ") + st.err().message;
    return out;
}

/// One scenario under one arm on a fresh server (and a fresh downstream server when the scenario asks for one).
/// Writes nothing: the caller files the outcome.
run_outcome run_one(const suite_options& o, const scenario& s, const arm_spec& a, const run_order& order,
                    const pinning& pins)
{
    run_outcome out;
    std::optional<result<run_result>> r;
    auto servers = with_servers(o, s, a, pins, [&](run_options& ro, const server_process&) {
        // The run's own sampler is the only one: its readings of each trial make the suite's server timeline.
        ro.on_progress = [&](const progress_event& ev) {
            if (ev.what == progress_event::phase::trial_done && ev.finished) {
                auto now = clock::now();
                out.sampled.windows.push_back({ev.finished->index, now - ev.finished->measured.elapsed, now});
                if (ev.server_readings)
                    out.sampled.readings.insert(out.sampled.readings.end(), ev.server_readings->begin(),
                                                ev.server_readings->end());
            }
            if (o.on_progress)
                o.on_progress(ev);
        };
        if (auto t = resolve_target(ro.url, false))
            add_note(out.message, port_range_check(s, *t));
        r = run(s, ro);
    });
    if (!servers.started) {
        out.message = servers.message;
        return out;
    }
    const auto& stop_problem = servers.message;
    if (!*r) {
        add_note(out.message, r->err().message + (stop_problem.empty() ? "" : "; " + stop_problem));
        return out;
    }
    auto& res = r->value();
    res.arm = a;
    res.order = order;
    res.affinity = pins.text;
    if (res.server.model != a.model)
        add_note(out.message, "server reported model '" + res.server.model + "'");
    add_note(out.message, stop_problem);
    out.result = std::move(res);
    return out;
}

/// The profiled trial of one scenario under one arm, on a fresh server, written to `out_dir/profile/`; never filed
/// with the measured trials.
void profile_one(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                 const std::optional<run_result>& measured)
{
    profile_event ev;
    ev.scenario = s.name;
    ev.arm = a.name.empty() ? a.model : a.name;
    if (measured)
        for (const auto& m : measured->summary)
            if (m.name == metric::requests_per_second)
                ev.unprofiled_rps = m.spread.median;
    std::optional<result<profile_capture>> captured;
    auto servers = with_servers(o, s, a, pins, [&](run_options& ro, const server_process&) {
        ro.on_progress = o.on_progress;
        captured = run_profiled(s, ro, o.profiling);
    });
    if (!servers.started) {
        ev.message = servers.message;
    } else if (!*captured) {
        ev.message = captured->err().message;
    } else {
        auto& c = captured->value();
        c.run.arm = a;
        c.run.affinity = pins.text;
        for (const auto& note : c.notes)
            add_note(ev.message, note);
        if (auto w = write_profile(c, o.out_dir); !w)
            add_note(ev.message, w.err().message);
        ev.capture = &c;
    }
    add_note(ev.message, servers.started ? servers.message : "");
    if (o.on_profile_done)
        o.on_profile_done(ev);
}

/// One scenario × arm as the ledger files it: the trials of every round merged into one result.
struct arm_record {
    suite_entry entry;
    std::optional<run_result> merged;
    std::vector<run_result> rounds;               ///< each server's own result, for its context line
    std::vector<detail::sampled_server> servers;  ///< each server's readings, for the server timeline
    std::string notes;
    std::optional<run_status> not_run_or_failed;
    clock::duration spent{};
};

/// Adds one server run (trial `round` in interleaved order) to the arm's record.
void absorb(arm_record& rec, run_outcome&& out, unsigned round, bool interleaved)
{
    if (!out.result) {
        add_note(rec.notes, interleaved ? "round " + std::to_string(round) + ": " + out.message : out.message);
        if (out.status == run_status::not_run)
            rec.not_run_or_failed = run_status::not_run;
        return;
    }
    add_note(rec.notes, out.message);
    auto& r = *out.result;
    if (interleaved) {
        for (auto& t : r.trials)
            t.index = round;
        for (auto& w : out.sampled.windows)
            w.trial = round;
    }
    if (!rec.merged) {
        rec.merged = r;
        rec.entry.run_id = r.run_id;
    } else {
        rec.merged->trials.insert(rec.merged->trials.end(), r.trials.begin(), r.trials.end());
        rec.merged->partial = rec.merged->partial || r.partial;
    }
    rec.servers.push_back(std::move(out.sampled));
    rec.rounds.push_back(std::move(r));
}

/// Writes an arm's merged result, its server samples, one context line per server run, and its ledger line.
result<void> file_record(const suite_options& o, arm_record& rec, const scenario& s, unsigned rounds_planned)
{
    auto& e = rec.entry;
    e.seconds = std::chrono::duration<double>(rec.spent).count();
    if (rec.merged) {
        auto& m = *rec.merged;
        m.scenario_used.trials = s.trials;
        m.partial = m.partial || m.trials.size() < rounds_planned;
        summarize_trials(m);
        auto paths = output_paths_for(o.out_dir / (o.suite + ".csv"));
        if (auto w = write_results(m, paths, false); !w)
            return w;
        if (o.hlog)
            if (auto w = write_hlog(m, hlog_path(o.out_dir, s.name, m.arm_name())); !w)
                return w;
        for (auto& r : rec.rounds) {
            r.run_id = m.run_id;
            if (auto w = append_context(r, paths); !w)
                return w;
        }
        if (auto w = detail::append_lines(server_timeline_path(o.out_dir, o.suite), detail::server_timeline_header,
                                          detail::server_timeline_lines(m, rec.servers, o.server_sample_period));
            !w)
            return w;
        e.status = status_of(m);
        e.message = error_summary(m);
        if (auto bound = m.generator_bound_trials(); bound > 0)
            add_note(e.message, std::to_string(bound) + " of " + std::to_string(m.trials.size()) +
                                    " trial(s) generator-bound" +
                                    (bound == m.trials.size() ? " (all kept)" : " (left out of the summary)"));
        if (m.partial)
            add_note(e.message, "partial: stopped before all trials");
        add_note(e.message, rec.notes);
    } else {
        e.status = rec.not_run_or_failed.value_or(run_status::failed);
        e.message = rec.notes;
    }
    if (auto w = append_ledger(ledger_path(o.out_dir, o.suite), e); !w)
        return w;
    if (o.on_run_done)
        o.on_run_done(e, rec.merged ? &*rec.merged : nullptr);
    return {};
}

/// Turns between the arms' capacity searches: one step at a time, the arms in their order, skipping those done.
class step_turns {
public:
    explicit step_turns(std::size_t arms) : active_(arms, true) {}

    /// Waits for arm `k`'s turn; false when it did not come within `limit`.
    bool acquire(std::size_t k, std::chrono::minutes limit)
    {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return current_ == k; });
    }
    /// Ends arm `k`'s turn: the next active arm's comes.
    void release(std::size_t k)
    {
        std::lock_guard lock(mutex_);
        advance_from(k);
        changed_.notify_all();
    }
    /// Arm `k` takes no more turns (its search ended or its server did not start).
    void leave(std::size_t k)
    {
        std::lock_guard lock(mutex_);
        active_[k] = false;
        if (current_ == k)
            advance_from(k);
        changed_.notify_all();
    }

private:
    void advance_from(std::size_t k)
    {
        auto n = active_.size();
        for (std::size_t i = 1; i <= n; ++i)
            if (active_[(k + i) % n]) {
                current_ = (k + i) % n;
                return;
            }
        current_ = n;
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<bool> active_;
    std::size_t current_ = 0;
};

/// A scenario with a `capacity` object under every arm: each arm's search on its own fresh server, the steps
/// interleaved across arms (one step of each in turn). Writes the suite's capacity files; the ledger is left to the
/// fixed-rate runs (docs/suites.md).
result<std::vector<suite_entry>> run_capacity_arms(const suite_options& o, const scenario& s,
                                                   const std::vector<arm_spec>& arms, const pinning& pins)
{
    capacity_spec spec = *s.capacity;
    capacity_spec from_command_line;
    from_command_line.step_duration = o.override_values.duration;
    from_command_line.step_warmup = o.override_values.warmup;
    from_command_line.trials = o.override_values.trials;
    spec.merge(from_command_line);
    auto plan = make_capacity_plan(spec);
    if (!plan)
        return fail("scenario " + s.name + ": " + plan.err().message);
    step_turns turns(arms.size());
    std::vector<capacity_record> records(arms.size());
    std::vector<std::optional<run_result>> first_steps(arms.size());  // their context lines: machine, load, build
    std::vector<suite_entry> entries(arms.size());
    std::vector<std::thread> searches;
    for (std::size_t k = 0; k < arms.size(); ++k) {
        auto& e = entries[k];
        e.suite = o.suite;
        e.scenario = s.name;
        e.model = arms[k].model;
        e.arm = arms[k].name;
        e.started_at = utc_timestamp();
        searches.emplace_back([&, k] {
            auto start = clock::now();
            auto& rec = records[k];
            rec.scenario = s.name;
            rec.arm = arms[k].name.empty() ? arms[k].model : arms[k].name;
            rec.model = arms[k].model;
            rec.slo = plan->slo;
            rec.connections = plan->connections.describe();
            auto wrap = [&](const capacity_step_body& body) -> result<capacity_step> {
                if (!turns.acquire(k, std::chrono::minutes{30}))
                    return fail("the other arms' steps took more than 30 minutes");
                auto st = body();
                turns.release(k);
                return st;
            };
            auto on_step = [&](const capacity_step& st, const run_result& r) {
                if (rec.run_id.empty()) {
                    rec.run_id = r.run_id;
                    first_steps[k] = r;
                    first_steps[k]->arm = arms[k];
                    first_steps[k]->affinity = pins.text;
                }
                if (o.on_capacity_step)
                    o.on_capacity_step(s.name, rec.arm, st);
            };
            auto servers = with_servers(o, s, arms[k], pins, [&](run_options& ro, const server_process&) {
                // A step's own line (on_capacity_step) says what its "trial done" would.
                ro.on_progress = [&](const progress_event& ev) {
                    if (o.on_progress && ev.what != progress_event::phase::trial_done)
                        o.on_progress(ev);
                };
                rec.result = run_capacity(s, ro, *plan, on_step, wrap);
            });
            turns.leave(k);
            if (!servers.started) {
                rec.result.what = capacity_result::outcome::stopped;
                rec.result.stop_reason = servers.message;
            }
            entries[k].run_id = rec.run_id;
            entries[k].seconds = std::chrono::duration<double>(clock::now() - start).count();
            entries[k].status =
                rec.result.what == capacity_result::outcome::stopped ? run_status::failed : run_status::ok;
            entries[k].capacity_search = true;
            entries[k].measured = rec.result.what == capacity_result::outcome::measured;
            entries[k].lower_bound = rec.result.lower_bound();
            entries[k].message = format_capacity_line(rec.result, rec.slo);
            add_note(entries[k].message, servers.started ? servers.message : "");
        });
    }
    for (auto& t : searches)
        t.join();
    auto paths = capacity_paths_for(o.out_dir / (o.suite + ".csv"));
    for (std::size_t k = 0; k < arms.size(); ++k) {
        if (!records[k].run_id.empty())
            if (auto w = write_capacity(records[k], paths); !w)
                return w.err();
        if (first_steps[k])
            if (auto w = append_context(*first_steps[k], output_paths_for(o.out_dir / (o.suite + ".csv"))); !w)
                return w.err();
        if (o.on_run_done)
            o.on_run_done(entries[k], nullptr);
    }
    return entries;
}

/// Restores this process's CPU mask when the suite ends.
class pin_guard {
public:
    pin_guard() : before_(allowed_cpus()) {}
    ~pin_guard()
    {
        if (pinned_)
            (void)pin_process(before_);
    }
    pin_guard(const pin_guard&) = delete;
    pin_guard& operator=(const pin_guard&) = delete;
    result<void> pin(const cpu_list& cpus)
    {
        auto r = pin_process(cpus);
        pinned_ = pinned_ || r.ok();
        return r;
    }
    [[nodiscard]] const cpu_list& before() const noexcept { return before_; }

private:
    cpu_list before_;
    bool pinned_ = false;
};

}  // namespace

result<std::vector<suite_entry>> run_suite(const suite_options& o)
{
    if (o.scenarios.empty())
        return fail("suite " + o.suite + ": no scenarios to run");
    std::vector<arm_spec> arms = o.arms;
    if (arms.empty()) {
        auto from_models = arms_of_models(o.models);
        if (!from_models)
            return from_models.err();
        arms = std::move(*from_models);
    }
    if (auto checked = check_arms(arms); !checked)
        return fail("suite " + o.suite + ": " + checked.err().message);
    std::vector<scenario> scenarios;
    for (const auto& name : o.scenarios) {
        auto s = load_named_scenario(o.scenarios_dir, name);
        if (!s)
            return s.err();
        if (auto applied = apply_overrides(*s, used_by(*s, o.override_values)); !applied)
            return fail("scenario " + name + ": " + applied.err().message);
        scenarios.push_back(std::move(*s));
    }
    // A load at a multiple of each arm's capacity needs the searches before anything runs.
    std::vector<capacity_record> capacities;
    if (std::any_of(scenarios.begin(), scenarios.end(), [](const scenario& s) { return s.load.rate_from; })) {
        auto read = read_capacity(o.capacity_from);
        if (!read)
            return fail("a scenario takes its rate from each arm's capacity, but the capacity searches cannot be "
                        "read (" + read.err().message + "); run bench-suite --suite capacity first, or give "
                        "--capacity-from a results folder that holds them");
        capacities = std::move(*read);
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec)
        return fail(o.out_dir.string() + ": cannot create: " + ec.message());
    if (auto ok = check_appendable(output_paths_for(o.out_dir / (o.suite + ".csv"))); !ok)
        return ok.err();

    // The generator is this process: pin it here; the servers are pinned by their own --cpus. A server given no
    // list gets the mask this process had, not the generator's it would otherwise inherit.
    pin_guard guard;
    pinning pins;
    pins.text = {format_cpu_list(o.server_cpus), format_cpu_list(o.load_cpus), format_cpu_list(o.downstream_cpus)};
    auto unpinned = format_cpu_list(guard.before());
    pins.server_cpus = !o.server_cpus.empty() ? pins.text.server : !o.load_cpus.empty() ? unpinned : "";
    pins.downstream_cpus = !o.downstream_cpus.empty() ? pins.text.downstream : !o.load_cpus.empty() ? unpinned : "";
    if (!o.load_cpus.empty()) {
        if (auto pinned = guard.pin(o.load_cpus); !pinned)
            return fail("--load-cpus: " + pinned.err().message);
    }
    pins.load_cpu_count = usable_cpu_count();

    bool interleaved = o.order == trial_order::interleaved;
    std::vector<suite_entry> entries;
    auto suite_start = clock::now();
    std::size_t count = 0;
    duration remaining{};
    std::vector<std::optional<std::string>> not_runnable;
    for (auto& s : scenarios) {
        not_runnable.push_back(beyond_open_files(s, o.fit_to_limits));
        if (not_runnable.back())
            continue;
        unsigned rounds = interleaved ? std::max(1u, s.trials) : 1;
        count += arms.size() * rounds;
        remaining += estimate(s, interleaved ? 1 : s.trials) * std::int64_t(arms.size() * rounds);
        if (o.profile && !s.capacity) {
            count += arms.size();
            remaining += estimate(s, 1) * std::int64_t(arms.size());
        }
    }
    std::size_t index = 0;
    for (std::size_t si = 0; si < scenarios.size(); ++si) {
        const auto& s = scenarios[si];
        if (s.capacity && !not_runnable[si]) {
            auto searched = run_capacity_arms(o, s, arms, pins);
            if (!searched)
                return searched.err();
            entries.insert(entries.end(), searched->begin(), searched->end());
            if (o.stop && o.stop->load())
                break;
            continue;
        }
        unsigned rounds = interleaved ? std::max(1u, s.trials) : 1;
        scenario per_server = s;
        if (interleaved)
            per_server.trials = 1;
        auto each = estimate(per_server, per_server.trials);
        std::vector<arm_record> records(arms.size());
        // Each arm's own copy: a rate taken from its capacity differs between arms. An arm without a measured
        // capacity does not run, and says why.
        std::vector<scenario> per_arm(arms.size(), per_server);
        std::vector<std::optional<std::string>> arm_not_runnable(arms.size());
        for (std::size_t k = 0; k < arms.size() && s.load.rate_from; ++k) {
            auto rate = rate_of_arm(capacities, *s.load.rate_from, arms[k].name, o.capacity_from.summary);
            if (!rate) {
                arm_not_runnable[k] = rate.err().message;
                continue;
            }
            per_arm[k].load.rate = rate->rate;
            per_arm[k].load.rate_from->capacity_rps = rate->capacity;
            per_arm[k].load.rate_from->search = rate->run_id;
            add_note(records[k].notes, "rate " + grouped(static_cast<std::uint64_t>(std::llround(rate->rate))) +
                                           " req/s: " + describe(*s.load.rate_from) + ", " +
                                           grouped(static_cast<std::uint64_t>(std::llround(rate->capacity))) +
                                           " req/s (search " + rate->run_id + ")");
        }
        for (std::size_t k = 0; k < arms.size(); ++k) {
            auto& e = records[k].entry;
            e.suite = o.suite;
            e.scenario = s.name;
            e.model = arms[k].model;
            e.arm = arms[k].name;
            e.started_at = utc_timestamp();
        }
        const auto& blocked_by_limits = not_runnable[si];
        // Counts the run and tells on_run_start about it; the profiled trial belongs to no round.
        auto announce = [&](std::size_t k, unsigned round, bool profiled) {
            ++index;
            if (!o.on_run_start)
                return;
            suite_progress p;
            p.index = index;
            p.count = count;
            p.scenario = s.name;
            p.model = arms[k].model;
            p.arm = arms[k].name;
            if (!profiled) {
                p.round = round;
                p.rounds = rounds;
            }
            p.elapsed = clock::now() - suite_start;
            p.remaining = remaining;
            p.profiled = profiled;
            o.on_run_start(p);
        };
        for (unsigned round = 1; round <= rounds && !blocked_by_limits; ++round) {
            auto order = interleaved ? round_order(arms.size(), o.seed, round) : round_order(arms.size(), 0, 0);
            if (!interleaved)
                std::sort(order.begin(), order.end());
            for (auto k : order) {
                if (o.stop && o.stop->load())
                    break;
                if (arm_not_runnable[k])
                    continue;
                announce(k, round, false);
                auto run_start = clock::now();
                auto outcome = run_one(o, per_arm[k], arms[k], {std::string(to_string(o.order)), o.seed, round}, pins);
                records[k].spent += clock::now() - run_start;
                absorb(records[k], std::move(outcome), round, interleaved);
                remaining = remaining > each ? remaining - each : duration{};
            }
        }
        for (std::size_t k = 0; k < arms.size(); ++k) {
            if (blocked_by_limits || arm_not_runnable[k]) {
                records[k].not_run_or_failed = run_status::not_run;
                records[k].notes = blocked_by_limits ? *blocked_by_limits : *arm_not_runnable[k];
            } else if (!records[k].merged && records[k].notes.empty()) {
                continue;  // stopped before this arm ran at all
            }
            if (auto w = file_record(o, records[k], per_arm[k], interleaved ? rounds : s.trials); !w)
                return w.err();
            entries.push_back(records[k].entry);
        }
        // The profiled trials come after every measured one, so perf never runs beside a trial that counts.
        for (std::size_t k = 0; k < arms.size() && o.profile && !blocked_by_limits; ++k) {
            if (o.stop && o.stop->load())
                break;
            if (arm_not_runnable[k])
                continue;
            announce(k, 1, true);
            scenario once = per_arm[k];
            once.trials = 1;
            profile_one(o, once, arms[k], pins, records[k].merged);
            auto one = estimate(once, 1);
            remaining = remaining > one ? remaining - one : duration{};
        }
        if (o.stop && o.stop->load())
            break;
    }
    return entries;
}

}  // namespace execbench::load
