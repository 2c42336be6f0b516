#include "execbench/load/suite/suite.hpp"
#include "execbench/load/suite/estimate.hpp"

#include "capacity_arms.hpp"
#include "server_run.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/machine_record.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/filer.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/machine_context.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/scenario/open_files.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/stats/sampler.hpp"

#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/server_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;
using detail::add_note;
using detail::csv_field;
using detail::pinning;
using detail::run_outcome;

}  // namespace

std::vector<std::string> server_option_args(const server_spec& spec)
{
    std::vector<std::string> out;
    for (const auto& [name, value] : spec.options)
        append_server_flag(out, name, value);
    return out;
}

suite_outcome tally(const std::vector<suite_entry>& entries)
{
    suite_outcome o;
    for (const auto& e : entries) {
        if (e.capacity_search) {
            ++o.searches;
            o.searches_measured += e.measured ? 1 : 0;
            o.searches_lower_bound += e.lower_bound ? 1 : 0;
            o.searches_connection_bound += e.connection_bound ? 1 : 0;
            o.searches_failed += e.status == run_status::failed ? 1 : 0;
            continue;
        }
        switch (e.status) {
        case run_status::ok: ++o.ok; break;
        case run_status::behind: ++o.behind; break;
        case run_status::errors: ++o.errors; break;
        case run_status::failed: ++o.failed; break;
        case run_status::not_run: ++o.not_run; break;
        case run_status::generator_bound: ++o.generator_bound; break;
        case run_status::stopped: ++o.stopped; break;
        }
    }
    return o;
}

std::string suite_outcome::text() const
{
    auto n = [](std::size_t v) { return std::to_string(v); };
    std::string out;
    if (auto runs = ok + behind + errors + failed + not_run + generator_bound + stopped; runs > 0)
        out = n(runs) + " run(s): " + n(ok) + " ok, " + n(behind) + " behind (unsent requests), " + n(errors) +
              " with request errors, " + n(failed) + " failed, " + n(not_run) + " not run, " + n(generator_bound) +
              " generator-bound (not results)" + (stopped > 0 ? ", " + n(stopped) + " stopped early (partial)" : "");
    // A capacity the scenario's connections bounded is the scenario's limit, not a measure of the server.
    if (searches > 0)
        out += (out.empty() ? "" : "; ") + n(searches) +
               " capacity search(es): " + n(searches_measured - searches_connection_bound) + " measured, " +
               n(searches_connection_bound) + " bounded by the scenario's connections (not the server's capacity), " +
               n(searches_lower_bound) + " lower bound(s) only, " +
               n(searches - searches_measured - searches_lower_bound) +
               " other (below the lowest rate, or not measured)";
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

/// One scenario × arm as the ledger files it: the trials of every round merged into one result.
struct arm_record {
    suite_entry entry;
    std::optional<run_record> merged;
    std::vector<run_record> rounds;               ///< each server's own result, for its context line
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
result<void> file_record(const suite_options& o, arm_record& rec, const scenario& s, unsigned rounds_planned,
                         const piece_facts& facts)
{
    auto& e = rec.entry;
    e.seconds = std::chrono::duration<double>(rec.spent).count();
    if (rec.merged) {
        auto& m = *rec.merged;
        m.scenario_used.trials = s.trials;
        // Rounds go missing when the suite is stopped, or when a round's server failed (its note says so): only
        // the first is a stopped run.
        bool missing_rounds = m.trials.size() < rounds_planned;
        bool stopped = m.partial || (missing_rounds && o.stop && o.stop->load());
        m.partial = m.partial || missing_rounds;
        summarize_trials(m);
        e.status = status_of(m);
        if (e.status == run_status::stopped && !stopped)  // partial because rounds were missing, not stopped
            e.status = m.generator_bound_trials() == m.trials.size() ? run_status::generator_bound : run_status::errors;
        e.message = format_figures(ledger_figures(m));
        if (auto bound = m.generator_bound_trials(); bound > 0)
            add_note(e.message, std::to_string(bound) + " of " + std::to_string(m.trials.size()) +
                                    " trial(s) generator-bound" +
                                    (bound == m.trials.size() ? " (all kept)" : " (left out of the summary)"));
        if (m.partial)
            add_note(e.message, stopped ? "partial: stopped before all trials" : "partial: not every round ran");
        add_note(e.message, rec.notes);
    } else {
        e.status = rec.not_run_or_failed.value_or(run_status::failed);
        e.message = rec.notes;
    }
    // The results, one context line per server run (each round), the interval log, the server timeline, then the
    // ledger line: a run that did not run files its ledger line alone.
    run_filing where;
    where.ledger = ledger_path(o.out_dir, o.suite);
    where.entry = &e;
    if (rec.merged) {
        where.results = output_paths_for(o.out_dir / (o.suite + ".csv"));
        for (auto& r : rec.rounds) {
            r.run_id = rec.merged->run_id;
            where.context_rounds.push_back(&r);
        }
        if (o.hlog)
            where.hlog = hlog_path(o.out_dir, s.name, rec.merged->arm_name());
        where.server_timeline = timeline_filing{server_timeline_path(o.out_dir, o.suite), &rec.servers,
                                                o.server_sample_period};
    }
    if (auto w = file_run(rec.merged ? *rec.merged : run_record{}, where); !w)
        return w;
    // A run the stop request cut short is kept for the reader, but not journalled: a resume redoes it whole. So is a
    // failed one (its server did not start, say): what failed may be mended before the resume.
    if (o.record && e.status != run_status::stopped && e.status != run_status::failed && !(o.stop && o.stop->load()))
        if (auto j = o.record->record_done({s.name, e.arm_name(), journal_kind::run}, e.run_id, e.seconds, facts); !j)
            return j;
    if (o.on_run_done)
        o.on_run_done(e, rec.merged ? &*rec.merged : nullptr);
    return {};
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

/// How far the suite has come, for on_run_start: runs started of the runs planned, and the time the estimates leave.
struct suite_progress_count {
    clock::time_point start = clock::now();
    std::size_t index = 0;
    std::size_t count = 0;
    duration remaining{};
    void spent(duration d) { remaining = remaining > d ? remaining - d : duration{}; }
};

/// The capacity searches that scenarios' rates are multiples of, with the machine each ran on.
struct capacity_searches {
    std::vector<capacity_record> records;
    std::map<std::string, std::string> machine_of;  ///< run_id -> machine_identity, where its context names one
    std::string this_machine;
};

/// What every scenario's runs share.
struct suite_context {
    const suite_options& o;
    const std::vector<arm_spec>& arms;
    const pinning& pins;
    const capacity_searches& capacities;
    bool interleaved;
    suite_progress_count& progress;

    [[nodiscard]] bool stopped() const { return o.stop && o.stop->load(); }
    /// An earlier invocation into the same folder finished this piece (its journal says so).
    [[nodiscard]] bool done(const scenario& s, std::size_t k, journal_kind kind) const
    {
        return o.record && o.record->done({s.name, arms[k].name, kind});
    }
};

/// The arms the suite compares: as given, or one per model.
result<std::vector<arm_spec>> suite_arms(const suite_options& o)
{
    std::vector<arm_spec> arms = o.arms;
    if (arms.empty()) {
        auto from_models = arms_of_models(o.models);
        if (!from_models)
            return from_models.err();
        arms = std::move(*from_models);
    }
    if (auto checked = check_arms(arms); !checked)
        return fail("suite " + o.suite + ": " + checked.err().message);
    return arms;
}

/// A load at a multiple of each arm's capacity needs the searches before anything runs; none needed, none read.
result<capacity_searches> capacities_for(const suite_options& o, const std::vector<scenario>& scenarios)
{
    if (std::none_of(scenarios.begin(), scenarios.end(), [](const scenario& s) { return takes_rate_from_capacity(s); }))
        return capacity_searches{};
    auto read = read_capacity(o.capacity_from);
    if (!read)
        return fail("a scenario takes its rate from each arm's capacity, but the capacity searches cannot be read (" +
                    read.err().message +
                    "); run bench-suite --suite capacity first, or give --capacity-from a results folder that holds "
                    "them");
    auto machines = capacity_machines(o.capacity_from);
    if (!machines)
        return machines.err();
    return capacity_searches{std::move(*read), std::move(*machines),
                             o.record ? o.record->machine() : machine_identity(collect_context())};
}

/// Why an arm's rate may not be a multiple of search `run_id`: it ran on another machine, whose capacity says
/// nothing of an overload here (the full study's failure-modes step, 2026-12-07, took AMD capacities to an Intel
/// machine). Nothing when it ran here, or its machine is not recorded.
std::optional<std::string> measured_elsewhere(const capacity_searches& c, const rate_from_capacity& from,
                                              const std::string& run_id, const std::string& arm)
{
    auto m = c.machine_of.find(run_id);
    if (m == c.machine_of.end() || m->second == c.this_machine)
        return std::nullopt;
    return describe(from) + " for arm " + arm + ": its search " + run_id + " ran on " + m->second +
           ", and this machine is " + c.this_machine + "; a multiple of another machine's capacity is not that "
           "overload here: run bench-suite --suite capacity --scenarios " + from.capacity_of + " on this machine first";
}

/// The generator is this process: pinned here; the servers are pinned by their own --cpus. A server given no list
/// gets the mask this process had, not the generator's it would otherwise inherit.
result<pinning> pin_generator(const suite_options& o, pin_guard& guard)
{
    pinning pins;
    pins.text = {format_cpu_list(o.server_cpus), format_cpu_list(o.load_cpus), format_cpu_list(o.downstream_cpus)};
    auto unpinned = format_cpu_list(guard.before());
    pins.server_cpus = !o.server_cpus.empty() ? pins.text.server : !o.load_cpus.empty() ? unpinned : "";
    pins.downstream_cpus = !o.downstream_cpus.empty() ? pins.text.downstream : !o.load_cpus.empty() ? unpinned : "";
    if (!o.load_cpus.empty())
        if (auto pinned = guard.pin(o.load_cpus); !pinned)
            return fail("--load-cpus: " + pinned.err().message);
    pins.load_cpu_count = usable_cpu_count();
    return pins;
}

/// Each arm's copy of a scenario, since a rate taken from its capacity differs between arms; an arm without a
/// measured capacity does not run, and `not_runnable` says why.
std::vector<scenario> per_arm_scenarios(const suite_context& c, const scenario& s, std::vector<arm_record>& records,
                                        std::vector<std::optional<std::string>>& not_runnable)
{
    std::vector<scenario> per_arm(c.arms.size(), s);
    for (std::size_t k = 0; k < c.arms.size(); ++k) {
        // The foreground's rate, and the background's (a storm beside measured clients), each from its search.
        for (auto* load : loads_from_capacity(per_arm[k])) {
            auto rate = rate_of_arm(c.capacities.records, *load->rate_from, c.arms[k].name, c.o.capacity_from.summary);
            if (!rate) {
                not_runnable[k] = rate.err().message;
                break;
            }
            if (auto elsewhere = measured_elsewhere(c.capacities, *load->rate_from, rate->run_id, c.arms[k].name)) {
                not_runnable[k] = std::move(*elsewhere);
                break;
            }
            load->rate = rate->rate;
            load->rate_from->capacity_rps = rate->capacity;
            load->rate_from->search = rate->run_id;
            add_note(records[k].notes, std::string(load == &per_arm[k].load ? "" : "background ") + "rate " +
                                           grouped(static_cast<std::uint64_t>(std::llround(rate->rate))) +
                                           " req/s: " + describe(*load->rate_from) + ", " +
                                           grouped(static_cast<std::uint64_t>(std::llround(rate->capacity))) +
                                           " req/s (search " + rate->run_id + ")");
        }
    }
    return per_arm;
}

/// Counts a run and tells on_run_start about it; a profiled trial belongs to no round.
void announce(const suite_context& c, const scenario& s, std::size_t k, unsigned round, unsigned rounds,
              bool profiled)
{
    ++c.progress.index;
    if (!c.o.on_run_start)
        return;
    suite_progress p;
    p.index = c.progress.index;
    p.count = c.progress.count;
    p.scenario = s.name;
    p.model = c.arms[k].model;
    p.arm = c.arms[k].name;
    if (!profiled) {
        p.round = round;
        p.rounds = rounds;
    }
    p.elapsed = clock::now() - c.progress.start;
    p.remaining = c.progress.remaining;
    p.profiled = profiled;
    c.o.on_run_start(p);
}

/// A scenario (not a capacity search) under every arm: its rounds, each arm once a round in the suite's order, a
/// fresh server each; then each arm's record filed; then the profiled trials, after every measured one so perf
/// never runs beside a trial that counts.
result<void> run_scenario(const suite_context& c, const scenario& s, const std::optional<std::string>& blocked,
                          std::vector<suite_entry>& entries)
{
    const auto& o = c.o;
    const auto n = c.arms.size();
    unsigned rounds = c.interleaved ? std::max(1u, s.trials) : 1;
    scenario per_server = s;
    if (c.interleaved)
        per_server.trials = 1;
    std::vector<arm_record> records(n);
    std::vector<std::optional<std::string>> arm_not_runnable(n);
    auto per_arm = per_arm_scenarios(c, per_server, records, arm_not_runnable);
    std::vector<bool> finished(n);
    for (std::size_t k = 0; k < n; ++k) {
        records[k].entry = detail::entry_for(o, s, c.arms[k]);
        finished[k] = c.done(s, k, journal_kind::run);
    }
    for (unsigned round = 1; round <= rounds && !blocked; ++round) {
        auto order = c.interleaved ? round_order(n, o.seed, round) : round_order(n, 0, 0);
        if (!c.interleaved)
            std::sort(order.begin(), order.end());
        for (auto k : order) {
            if (c.stopped())
                break;
            if (arm_not_runnable[k] || finished[k])
                continue;
            announce(c, s, k, round, rounds, false);
            auto run_start = clock::now();
            auto outcome =
                detail::run_one(o, per_arm[k], c.arms[k], {std::string(to_string(o.order)), o.seed, round}, c.pins);
            records[k].spent += clock::now() - run_start;
            absorb(records[k], std::move(outcome), round, c.interleaved);
            c.progress.spent(estimate_run(per_server, per_server.trials, c.arms[k]));
        }
    }
    for (std::size_t k = 0; k < n; ++k) {
        if (finished[k])
            continue;
        if (blocked || arm_not_runnable[k]) {
            records[k].not_run_or_failed = run_status::not_run;
            records[k].notes = blocked ? *blocked : *arm_not_runnable[k];
        } else if (!records[k].merged && records[k].notes.empty()) {
            continue;  // stopped before this arm ran at all
        }
        auto facts = facts_before_filing(o, s, c.arms[k], journal_kind::run);
        if (auto w = file_record(o, records[k], per_arm[k], c.interleaved ? rounds : s.trials, facts); !w)
            return w;
        entries.push_back(records[k].entry);
    }
    for (std::size_t k = 0; k < n && o.profile && !blocked; ++k) {
        if (c.stopped())
            break;
        if (arm_not_runnable[k] || c.done(s, k, journal_kind::profile))
            continue;
        announce(c, s, k, 1, rounds, true);
        scenario once = per_arm[k];
        once.trials = 1;
        auto started = clock::now();
        auto facts = facts_before_filing(o, s, c.arms[k], journal_kind::profile);
        detail::profile_one(o, once, c.arms[k], c.pins, records[k].merged);
        c.progress.spent(estimate_run(once, 1, c.arms[k]));
        if (o.record && !c.stopped())
            if (auto j = o.record->record_done({s.name, c.arms[k].name, journal_kind::profile}, "",
                                               std::chrono::duration<double>(clock::now() - started).count(), facts);
                !j)
                return j;
    }
    return {};
}

/// The kinds of piece scenario `s` makes under each arm.
std::vector<journal_kind> kinds_of(const suite_options& o, const scenario& s)
{
    if (s.capacity)
        return {journal_kind::capacity};
    if (o.profile)
        return {journal_kind::run, journal_kind::profile};
    return {journal_kind::run};
}

/// Copies the pieces of `s` a reuse source holds under the same settings, before anything of `s` runs: they are then
/// finished in the journal, and skipped like pieces an earlier invocation ran.
result<void> reuse_finished(const suite_context& c, const scenario& s)
{
    const auto& o = c.o;
    if (o.reuse_from.empty() || !o.record)
        return {};
    for (auto kind : kinds_of(o, s))
        for (std::size_t k = 0; k < c.arms.size(); ++k) {
            if (c.done(s, k, kind))
                continue;
            journal_key key{s.name, c.arms[k].name, kind};
            auto copied = reuse_piece(o, key, piece_settings(o, s, c.arms[k], kind));
            if (!copied)
                return copied.err();
            if (o.on_reuse && (!copied->from.empty() || !copied->refused.empty()))
                o.on_reuse(key, copied->from, copied->refused);
        }
    return {};
}

/// The suite's scenarios as they will run: the overrides applied, and each fitted under the open-file limits (with
/// --fit-to-limits) or not runnable, and why.
struct prepared_scenarios {
    std::vector<scenario> scenarios;
    std::vector<std::optional<std::string>> not_runnable;
};

result<prepared_scenarios> prepare_scenarios(const suite_options& o)
{
    if (o.scenarios.empty())
        return fail("suite " + o.suite + ": no scenarios to run");
    prepared_scenarios out;
    for (auto s : o.scenarios) {
        if (auto applied = apply_overrides(s, used_by(s, o.override_values)); !applied)
            return fail("scenario " + s.name + ": " + applied.err().message);
        out.not_runnable.push_back(beyond_open_files(s, o.fit_to_limits));
        out.scenarios.push_back(std::move(s));
    }
    return out;
}

/// The plan of prepared scenarios under `arms` (plan_suite's, and the progress's first estimate).
suite_plan plan_of(const suite_options& o, const std::vector<arm_spec>& arms, const prepared_scenarios& prepared)
{
    const bool interleaved = o.order == trial_order::interleaved;
    suite_plan plan;
    // Each piece left: its files' estimate, and what it took when it ran before (the journal), if it did.
    struct piece {
        std::size_t scenario;
        duration from_files;
        std::optional<duration> measured;
    };
    std::vector<piece> pieces;
    double measured_sum = 0, files_sum = 0;  // of the finished pieces: how far the files' estimates were off
    for (std::size_t si = 0; si < prepared.scenarios.size(); ++si) {
        const auto& s = prepared.scenarios[si];
        // A finished search's arms are each journalled with the whole search's time, where each arm's estimate is its
        // share of it: the search counts once, its longest arm against the sum of its arms' estimates.
        double search_longest = 0, search_estimates = 0;
        planned_scenario p;
        p.scenario = s.name;
        p.capacity = s.capacity.has_value();
        p.arms = arms.size();
        p.rounds = interleaved && !p.capacity ? std::max(1u, s.trials) : 1;
        if (s.scale.factor != 1)
            p.scale = fixed(s.scale.factor, 2);
        if (s.time_scale.factor != 1)
            p.time_scale = fixed(s.time_scale.factor, 2);
        if (prepared.not_runnable[si]) {
            p.not_runnable = *prepared.not_runnable[si];
            scenario fitted = s;
            if (auto f = fit_open_files(fitted, true); f && f->scale.factor != 1)
                p.scale = fixed(f->scale.factor, 2);
            plan.scenarios.push_back(std::move(p));
            continue;
        }
        for (auto kind : kinds_of(o, s)) {
            for (const auto& a : arms) {
                auto each = kind == journal_kind::profile ? estimate_run(s, 1, a)
                            : p.capacity ? estimate_search(s, o, 1)
                                         : estimate_run(s, interleaved ? 1 : s.trials, a) * std::int64_t(p.rounds);
                journal_key key{s.name, a.name, kind};
                std::optional<duration> took;
                if (auto secs = o.record ? o.record->seconds_of(key) : std::nullopt)
                    took = std::chrono::duration_cast<duration>(std::chrono::duration<double>(*secs));
                if (o.record && o.record->done(key)) {
                    ++plan.done;
                    if (took && p.capacity && kind == journal_kind::capacity) {
                        search_longest = std::max(search_longest, std::chrono::duration<double>(*took).count());
                        search_estimates += std::chrono::duration<double>(each).count();
                    } else if (took) {
                        measured_sum += std::chrono::duration<double>(*took).count();
                        files_sum += std::chrono::duration<double>(each).count();
                    }
                    continue;
                }
                if (const auto* src = reusable(o, key, piece_settings(o, s, a, kind), true)) {
                    ++p.reused;
                    ++plan.reused;
                    if (std::find(plan.reused_from.begin(), plan.reused_from.end(), src->name) ==
                        plan.reused_from.end())
                        plan.reused_from.push_back(src->name);
                    continue;
                }
                p.arms_left += kind == journal_kind::profile ? 0 : 1;
                p.runs += kind == journal_kind::profile ? 1 : p.rounds;
                pieces.push_back({plan.scenarios.size(), each, took});
            }
        }
        measured_sum += search_longest;
        files_sum += search_estimates;
        plan.scenarios.push_back(std::move(p));
    }
    const double factor = files_sum > 0 ? measured_sum / files_sum : 1;
    std::vector<std::size_t> measured(plan.scenarios.size()), estimated(plan.scenarios.size());
    std::vector<duration> longest_search(plan.scenarios.size());
    for (const auto& pc : pieces) {
        auto& p = plan.scenarios[pc.scenario];
        ++(pc.measured ? measured : estimated)[pc.scenario];
        // A search's arms run side by side and each is journalled with the whole search's time: the longest
        // measured arm stands for the search.
        if (p.capacity && pc.measured)
            longest_search[pc.scenario] = std::max(longest_search[pc.scenario], *pc.measured);
        else
            p.estimate += pc.measured ? *pc.measured : std::chrono::duration_cast<duration>(pc.from_files * factor);
    }
    for (std::size_t si = 0; si < plan.scenarios.size(); ++si) {
        auto& p = plan.scenarios[si];
        if (longest_search[si] > duration{})
            p.estimate = longest_search[si];
        auto from_files = factor == 1 ? std::string("files") : "files x" + fixed(factor, 2);
        p.basis = measured[si] == 0 ? from_files : estimated[si] == 0 ? "measured" : "measured + " + from_files;
        plan.runs += p.runs;
        plan.total += p.estimate;
    }
    return plan;
}

}  // namespace

std::string format_length(duration d)
{
    auto secs = std::chrono::duration<double>(d).count();
    if (secs < 90)
        return fixed(secs, 0) + " s";
    if (secs < 3600)
        return fixed(secs / 60, 1) + " min";
    auto hours = static_cast<long long>(secs / 3600);
    return std::to_string(hours) + " h " + std::to_string(static_cast<long long>(secs / 60) % 60) + " min";
}

result<suite_plan> plan_suite(const suite_options& o)
{
    auto arms = suite_arms(o);
    auto prepared = arms ? prepare_scenarios(o) : arms.err();
    if (!prepared)
        return prepared.err();
    return plan_of(o, *arms, *prepared);
}

result<std::map<journal_key, std::string>> suite_piece_settings(const suite_options& o)
{
    auto arms = suite_arms(o);
    auto prepared = arms ? prepare_scenarios(o) : arms.err();
    if (!prepared)
        return prepared.err();
    std::map<journal_key, std::string> out;
    for (std::size_t si = 0; si < prepared->scenarios.size(); ++si) {
        const auto& s = prepared->scenarios[si];
        if (prepared->not_runnable[si])
            continue;
        for (auto kind : kinds_of(o, s))
            for (const auto& a : *arms)
                if (auto settings = piece_settings(o, s, a, kind); !settings.empty())
                    out[{s.name, a.name, kind}] = std::move(settings);
    }
    return out;
}

result<std::vector<suite_entry>> run_suite(const suite_options& o)
{
    auto arms = suite_arms(o);
    auto prepared = arms ? prepare_scenarios(o) : arms.err();
    if (!prepared)
        return prepared.err();
    const auto& scenarios = prepared->scenarios;
    const auto& not_runnable = prepared->not_runnable;
    auto capacities = capacities_for(o, scenarios);
    if (!capacities)
        return capacities.err();
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec)
        return fail(o.out_dir.string() + ": cannot create: " + ec.message());
    if (auto ok = check_appendable(output_paths_for(o.out_dir / (o.suite + ".csv"))); !ok)
        return ok.err();
    if (o.record)
        if (auto begun = o.record->begin(o.seed); !begun)
            return begun.err();
    pin_guard guard;
    auto pins = pin_generator(o, guard);
    if (!pins)
        return pins.err();

    const bool interleaved = o.order == trial_order::interleaved;
    suite_progress_count progress;
    auto plan = plan_of(o, *arms, *prepared);
    progress.count = plan.runs;
    progress.remaining = plan.total;
    const suite_context c{o, *arms, *pins, *capacities, interleaved, progress};
    std::vector<suite_entry> entries;
    for (std::size_t si = 0; si < scenarios.size() && !c.stopped(); ++si) {
        const auto& s = scenarios[si];
        if (!not_runnable[si])
            if (auto copied = reuse_finished(c, s); !copied)
                return copied.err();
        if (s.capacity && !not_runnable[si]) {
            std::vector<arm_spec> searching;
            for (std::size_t k = 0; k < arms->size(); ++k)
                if (!c.done(s, k, journal_kind::capacity))
                    searching.push_back((*arms)[k]);
            if (searching.empty())
                continue;
            auto searched = detail::run_capacity_arms(o, s, searching, *pins);
            if (!searched)
                return searched.err();
            // A search announces no runs of its own, but the plan counts its arms and its time: take both off
            // here, or every run after a search shows the search still to come (peers, 2026-12-07).
            progress.index += searching.size();
            progress.spent(plan.scenarios[si].estimate);
            entries.insert(entries.end(), searched->begin(), searched->end());
        } else if (auto ran = run_scenario(c, s, not_runnable[si], entries); !ran) {
            return ran.err();
        }
    }
    if (o.record && !c.stopped())
        if (auto ended = o.record->record_end(); !ended)
            return ended.err();
    return entries;
}

}  // namespace execbench::load
