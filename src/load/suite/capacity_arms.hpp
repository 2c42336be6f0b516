#pragma once
// Private to load/suite: the capacity searches of a suite, one per arm, their steps taking turns.

#include "server_run.hpp"

#include "execbench/core/result.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/results/ledger.hpp"

#include <vector>

namespace execbench::load::detail {

/// The plan of scenario `s`'s capacity search in this suite: its `capacity` object, with the suite's --duration,
/// --warmup and --trials as each step's length, warm-up and the bisections; the error names the field.
result<capacity_plan> search_plan(const suite_options& o, const scenario& s);

/// A scenario with a `capacity` object under every arm: each arm's search on its own fresh server, the steps
/// interleaved across arms (one step of each in turn). Writes the suite's capacity files; the ledger is left to the
/// fixed-rate runs (docs/suites.md).
result<std::vector<suite_entry>> run_capacity_arms(const suite_options& o, const scenario& s,
                                                   const std::vector<arm_spec>& arms, const pinning& pins);

}  // namespace execbench::load::detail
