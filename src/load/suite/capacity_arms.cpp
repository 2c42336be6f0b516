#include "capacity_arms.hpp"

#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/filer.hpp"
#include "execbench/load/results/results.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace execbench::load::detail {

namespace {

using clock = std::chrono::steady_clock;

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

/// What every arm's search shares.
struct search_context {
    const suite_options& o;
    const scenario& s;
    const capacity_plan& plan;
    const pinning& pins;
    step_turns& turns;
};

/// Arm `k`'s search on its own server, its steps taking turns with the other arms': fills its record, its first step
/// (whose context line names the machine, load and build) and its suite entry.
void search_arm(const search_context& c, std::size_t k, const arm_spec& arm, capacity_record& rec,
                std::optional<run_record>& first_step, suite_entry& e)
{
    auto start = clock::now();
    rec.scenario = c.s.name;
    rec.arm = arm.name.empty() ? arm.model : arm.name;
    rec.model = arm.model;
    rec.slo = c.plan.slo;
    rec.connections = c.plan.connections.describe();
    auto wrap = [&](const capacity_step_body& body) -> result<capacity_step> {
        if (!c.turns.acquire(k, std::chrono::minutes{30}))
            return fail("the other arms' steps took more than 30 minutes");
        auto st = body();
        c.turns.release(k);
        return st;
    };
    auto on_step = [&](const capacity_step& st, const run_record& r) {
        if (rec.run_id.empty()) {
            rec.run_id = r.run_id;
            first_step = r;
            first_step->arm = arm;
            first_step->affinity = c.pins.text;
        }
        if (c.o.on_capacity_step)
            c.o.on_capacity_step(c.s.name, rec.arm, st);
    };
    auto servers = with_servers(c.o, c.s, arm, c.pins, [&](run_options& ro, const server_process&) {
        // A step's own line (on_capacity_step) says what its "trial done" would.
        ro.on_progress = [&](const progress_event& ev) {
            if (c.o.on_progress && ev.what != progress_event::phase::trial_done)
                c.o.on_progress(ev);
        };
        // Resolved and probed once for the whole search, as bench-load's session does.
        auto target = open_target(ro);
        if (!target) {
            rec.result.what = capacity_result::outcome::stopped;
            rec.result.stop_reason = target.err().message;
            return;
        }
        rec.result = run_capacity(c.s, ro, *target, c.plan, on_step, wrap);
    });
    c.turns.leave(k);
    if (!servers.started) {
        rec.result.what = capacity_result::outcome::stopped;
        rec.result.stop_reason = servers.message;
    }
    e.run_id = rec.run_id;
    e.seconds = std::chrono::duration<double>(clock::now() - start).count();
    e.status = rec.result.what == capacity_result::outcome::stopped ? run_status::failed : run_status::ok;
    e.capacity_search = true;
    e.measured = rec.result.what == capacity_result::outcome::measured;
    e.lower_bound = rec.result.lower_bound();
    e.connection_bound = e.measured && bounding_connections(rec.result).has_value();
    e.message = format_capacity_line(rec.result, rec.slo);
    add_note(e.message, servers.started ? servers.message : "");
}

}  // namespace

result<capacity_plan> search_plan(const suite_options& o, const scenario& s)
{
    capacity_spec spec = *s.capacity;
    capacity_spec from_command_line;
    from_command_line.step_duration = o.override_values.duration;
    from_command_line.step_warmup = o.override_values.warmup;
    from_command_line.trials = o.override_values.trials;
    spec.merge(from_command_line);
    return make_capacity_plan(spec);
}

result<std::vector<suite_entry>> run_capacity_arms(const suite_options& o, const scenario& s,
                                                   const std::vector<arm_spec>& arms, const pinning& pins)
{
    auto plan = search_plan(o, s);
    if (!plan)
        return fail("scenario " + s.name + ": " + plan.err().message);
    step_turns turns(arms.size());
    const search_context c{o, s, *plan, pins, turns};
    std::vector<capacity_record> records(arms.size());
    std::vector<std::optional<run_record>> first_steps(arms.size());
    std::vector<suite_entry> entries(arms.size());
    std::vector<std::thread> searches;
    for (std::size_t k = 0; k < arms.size(); ++k) {
        entries[k] = entry_for(o, s, arms[k]);
        searches.emplace_back([&, k] { search_arm(c, k, arms[k], records[k], first_steps[k], entries[k]); });
    }
    for (auto& t : searches)
        t.join();
    for (std::size_t k = 0; k < arms.size(); ++k) {
        const run_record* first_step = first_steps[k] ? &*first_steps[k] : nullptr;
        auto facts = facts_before_filing(o, s, arms[k], journal_kind::capacity);
        if (auto w = file_capacity(records[k], o.out_dir / (o.suite + ".csv"), first_step); !w)
            return w.err();
        if (o.record && entries[k].status != run_status::failed && !(o.stop && o.stop->load()))
            if (auto j = o.record->record_done({s.name, arms[k].name, journal_kind::capacity}, entries[k].run_id,
                                               entries[k].seconds, facts);
                !j)
                return j.err();
        if (o.on_run_done)
            o.on_run_done(entries[k], nullptr);
    }
    return entries;
}

}  // namespace execbench::load::detail
