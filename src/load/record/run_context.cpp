#include "execbench/load/record/run_context.hpp"

#include "execbench/load/scenario/scale.hpp"
#include "execbench/stats/sampler.hpp"

namespace execbench::load {

run_context context_of(const run_record& r)
{
    run_context c;
    c.run_id = r.run_id;
    c.started_at = r.started_at;
    c.machine = r.context;
    c.cpu_max_window_ms = stats::cpu_max_window.count();
    c.arm = r.arm;
    c.arm.name = r.arm_name();
    if (c.arm.model.empty())
        c.arm.model = r.server.model;
    c.order = r.order;
    c.affinity = r.affinity;
    c.scenario_used = r.scenario_used;
    if (r.scenario_used.scale.factor != 1)
        c.scale_note = scale_note(r.scenario_used);
    c.time_note = time_note(r.scenario_used);
    c.url = r.url;
    c.threads = r.threads;
    c.server = r.server;
    c.trials_completed = r.trials.size();
    c.generator_bound_trials = r.generator_bound_trials();
    c.partial = r.partial;
    c.noisy = r.noisy();
    return c;
}

}  // namespace execbench::load
