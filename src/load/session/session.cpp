#include "execbench/load/session/session.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/profile/profiler.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/filer.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/preflight.hpp"
#include "execbench/load/run/progress.hpp"
#include "execbench/load/run/run_output.hpp"

#include <algorithm>
#include <fstream>
#include <utility>

namespace execbench::load {

result<session> session::open(scenario s, session_options o)
{
    auto t = open_target(o.run);
    if (!t)
        return t.err();
    return session(std::move(s), std::move(o), std::move(*t));
}

session::session(scenario s, session_options o, run_target t)
    : scenario_(std::move(s)), options_(std::move(o)), target_(std::move(t))
{
}

void session::note(const std::string& text) const
{
    if (options_.note)
        options_.note(text);
}

void session::print(const std::string& line) const
{
    if (options_.print)
        options_.print(line);
}

std::string session::banner(std::string_view load) const
{
    return format_banner(scenario_, options_.run, target_.where, target_.server, load);
}

result<void> session::preflight() const
{
    auto timeout = std::min<std::chrono::milliseconds>(
        std::chrono::duration_cast<std::chrono::milliseconds>(scenario_.timeout), std::chrono::seconds{10});
    auto first = load::preflight(scenario_, target_.where, timeout);
    if (!first) {
        if (!options_.allow_errors)
            return fail("pre-flight request failed: " + first.err().message + " (--allow-errors runs anyway)");
        note("pre-flight request failed: " + first.err().message + "; running anyway (--allow-errors)");
    }
    for (const auto& warning : warnings())
        note("warning: " + warning);
    if (first)
        if (auto warning = open_loop_capacity_warning(scenario_, first->latency))
            note("warning: " + *warning);
    return {};
}

std::vector<std::string> session::warnings() const
{
    auto out = server_mismatches(scenario_, target_.where, target_.server);
    if (auto idle = idle_timeout_warning(scenario_, target_.server); !idle.empty())
        out.push_back(std::move(idle));
    if (auto ports = port_range_check(scenario_, target_.where); !ports.empty())
        out.push_back(std::move(ports));
    return out;
}

result<void> session::check_outputs() const
{
    if (!options_.out)
        return {};
    return check_appendable(output_paths_for(*options_.out));
}

result<run_record> session::run() const
{
    if (options_.start_at) {
        auto late = wait_for_start(*options_.start_at, options_.run.stop);
        // Within a tenth of a second is clock noise between hosts (docs/distributed.md).
        if (late > std::chrono::milliseconds{100})
            note((options_.shard ? "shard " + format_shard(*options_.shard) + " is " : std::string{}) +
                 std::to_string(late.count()) + " ms late for --start-at " + std::to_string(*options_.start_at) +
                 ": starting now, so this generator's load runs that much later than the others' "
                 "(docs/distributed.md)");
    }
    if (!options_.shards)
        return load::run(scenario_, options_.run, target_);
    const auto n = std::to_string(options_.shards->processes);
    if (!options_.quiet)
        note(n + " generator processes, each with 1/" + n + " of the load");
    auto r = run_in_processes(scenario_, options_.run, target_, *options_.shards);
    // A single process prints these as each trial ends.
    if (r)
        for (const auto& t : r->trials)
            print(options_.json ? format_trial_json(*r, t) : format_trial_line(*r, t));
    return r;
}

void session::summarize(const run_record& r, const std::vector<slo_verdict>& verdicts) const
{
    if (!r.trials.empty())
        print(options_.json ? format_summary_json(r, verdicts) : format_summary_line(r));
}

result<void> session::write(const run_record& r) const
{
    run_filing where;
    if (options_.out)
        where.results = output_paths_for(*options_.out);
    where.hlog = options_.hlog;
    if (auto filed = file_run(r, where); !filed)
        return filed;
    // Not a results file: the exact trials a --processes shard hands its parent, who files the merged run.
    if (options_.shard_trials) {
        std::ofstream file(*options_.shard_trials, std::ios::binary | std::ios::trunc);
        file << format_shard_trials(r);
        if (!file)
            return fail(options_.shard_trials->string() + ": cannot write the shard's trials");
    }
    return {};
}

void session::profile(const run_record& measured) const
{
    profile_options p;
    if (auto why = perf_unavailable(p)) {
        note("--profile: " + *why + "; no profile");
        return;
    }
    if (!measured.server.pid) {
        note("--profile: the server's pid is unknown (give --server-pid); no profile");
        return;
    }
    // The server is warm from the measured trials: no warm-up.
    scenario s = scenario_;
    s.warmup = {};
    run_options o = options_.run;
    o.server_pid = measured.server.pid;
    if (options_.quiet)
        o.on_progress = nullptr;
    else
        note("profiled trial (under perf, not a result)");
    auto captured = run_profiled(s, o, p);
    if (!captured) {
        note("--profile: " + captured.err().message);
        return;
    }
    double median = 0;
    for (const auto& m : measured.summary)
        if (m.name == metric::requests_per_second)
            median = m.spread.median;
    print(format_profile_line(s.name, measured.arm_name(), &*captured, median));
    for (const auto& n : captured->notes)
        note("--profile: " + n);
    auto dir = options_.out ? options_.out->parent_path() : std::filesystem::path{};
    if (dir.empty())
        dir = ".";
    if (auto written = file_profile(*captured, dir); !written)
        note("--profile: " + written.err().message);
    else
        note("profile written to " + profile_path(dir, s.name, measured.arm_name(), "*").string());
}

std::vector<slo_verdict> session::judge(const run_record& r) const
{
    if (options_.gates.empty() || r.trials.empty())
        return {};
    return check_slo(options_.gates, r);
}

run_exit session::finish(const run_record& r, const std::vector<slo_verdict>& verdicts) const
{
    if (auto idle = idle_server_warning(r))
        note("warning: " + *idle);
    if (r.partial && !options_.shard_trials)  // a shard of --processes leaves this to its parent
        note("stopped early; results written so far are marked partial");
    for (const auto& v : verdicts)
        if (!v.passed)
            note("SLO broken: " + describe(v));
    if (!verdicts.empty() && !slo_broken(verdicts)) {
        std::string met;
        for (const auto& v : verdicts)
            met += (met.empty() ? "" : ", ") + describe(v);
        note("SLO met: " + met);
    }
    if (slo_broken(verdicts) || (!options_.gates.empty() && r.trials.empty()))
        return run_exit::slo_broken;
    if (r.had_errors() || r.partial)
        return run_exit::errors;
    return r.had_unsent() ? run_exit::behind : run_exit::ok;
}

result<run_exit> session::execute() const
{
    // A capacity search sets its steps' shape, length and trials itself: the banner says those, not the scenario's.
    if (!options_.quiet)
        note(banner(options_.capacity ? describe(*options_.capacity) : std::string{}));
    if (!options_.capacity)
        if (auto ok = check_outputs(); !ok)
            return ok.err();
    if (auto ready = preflight(); !ready)
        return ready.err();
    if (options_.run.stop && options_.run.stop->load())
        return fail("stopped before the first trial; nothing written");
    if (options_.capacity)
        return search(*options_.capacity);
    auto r = run();
    if (!r)
        return r.err();
    r->affinity.load = options_.load_affinity;
    auto verdicts = judge(*r);
    summarize(*r, verdicts);
    if (auto written = write(*r); !written) {
        note(written.err().message);
        return run_exit::errors;
    }
    if (options_.profile && !r->partial)
        profile(*r);
    return finish(*r, verdicts);
}

run_exit session::search(const capacity_plan& plan) const
{
    std::string run_id, model, arm;
    auto found = run_capacity(scenario_, options_.run, target_, plan, [&](const capacity_step& step, const run_record& r) {
        if (run_id.empty()) {
            run_id = r.run_id;
            model = r.server.model;
            arm = r.arm_name();
        }
        print(options_.json ? format_step_json(step) : format_step_line(step));
    });
    auto connections = plan.connections.describe();
    if (options_.json)
        print(format_capacity_json(found, plan.slo, connections));
    else
        print(std::to_string(found.steps.size()) + " steps of " + format_duration(plan.step_length) +
              ", each after a " + format_duration(plan.step_warmup) + " warm-up; " + connections + "\n" +
              format_capacity_line(found, plan.slo));
    if (options_.out) {
        capacity_record rec{run_id, scenario_.name, arm, model, plan.slo, connections, found};
        if (auto written = file_capacity(rec, *options_.out); !written) {
            note(written.err().message);
            return run_exit::errors;
        }
    }
    switch (found.what) {
    case capacity_result::outcome::measured:
    case capacity_result::outcome::generator_bound:
    case capacity_result::outcome::above_max: return run_exit::ok;
    case capacity_result::outcome::below_min: return run_exit::slo_broken;
    case capacity_result::outcome::stopped: break;
    }
    return run_exit::errors;
}

}  // namespace execbench::load
