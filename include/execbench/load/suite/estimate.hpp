#pragma once

#include "execbench/load/record/arm_spec.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstddef>

namespace execbench::load {

struct suite_options;

/// How long one server run of `trials` trials of `s` under `arm` should take, from the files: its warm-up, trials
/// and pauses, a burst's trial from its longest wait, the server's start and stop (more with many connections, a TLS
/// key to make and handshakes to do), and, where the arm deadlocks on its self-calls
/// (self_calls_exhaust_threads), every phase's requests waiting out the scenario's timeout. What the plan and the
/// progress's ETA start from before a journal holds a measured time; its constants are fitted to the study's
/// journals (docs/suites.md, "The time budget").
duration estimate_run(const scenario& s, unsigned trials, const arm_spec& arm);

/// A capacity search's length, `arms` arms together (their steps take turns, so they add up): widening from the start
/// rate to the maximum's geometric middle, then the first bisection to the resolution, then each later trial's
/// re-checked ends and bisection. A search that ends early (its first step fails, or the generator's limit comes
/// first) takes less; a search that ran before is better known by its journal's seconds.
duration estimate_search(const scenario& s, const suite_options& o, std::size_t arms);

/// True when `arm` is a model whose waiting requests hold its threads and `s`'s calls back into the same server need
/// more of them at once than it has (Little's law: the requests in flight at the deepest wait, times one thread per
/// call level): every thread then waits on a call queued behind it, and every request waits out its timeout.
bool self_calls_exhaust_threads(const scenario& s, const arm_spec& arm);

}  // namespace execbench::load
