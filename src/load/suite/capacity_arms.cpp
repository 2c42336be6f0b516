#include "capacity_arms.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/results/capacity_results.hpp"
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

}  // namespace

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
                // Resolved and probed once for the whole search, as bench-load's session does.
                auto target = open_target(ro);
                if (!target) {
                    rec.result.what = capacity_result::outcome::stopped;
                    rec.result.stop_reason = target.err().message;
                    return;
                }
                rec.result = run_capacity(s, ro, *target, *plan, on_step, wrap);
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
            entries[k].connection_bound = entries[k].measured && bounding_connections(rec.result).has_value();
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

}  // namespace execbench::load::detail
