#pragma once
// Private to load/suite: one server lifetime of a suite (a fresh bench-server per arm and round, with its downstream
// and database when the scenario asks for them) and what it produced.

#include "execbench/load/results/server_timeline.hpp"
#include "execbench/load/suite/server_process.hpp"
#include "execbench/load/suite/suite.hpp"

#include <functional>
#include <optional>
#include <string>

namespace execbench::load::detail {

/// Appends `note` to `to`, "; "-separated; an empty note adds nothing.
void add_note(std::string& to, const std::string& note);

/// A ledger line of this suite for scenario `s` on `arm`, stamped with the time it starts.
suite_entry entry_for(const suite_options& o, const scenario& s, const arm_spec& arm);

/// What one server lifetime produced: why it did not run, or its result with the server's samples.
struct run_outcome {
    run_status status = run_status::failed;  ///< when there is no result: failed or not_run
    std::string message;                     ///< the failure, or notes beside a result (stop problems)
    std::optional<run_record> result;
    sampled_server sampled;
};

/// The CPU lists every run of a suite uses.
struct pinning {
    affinity_record text;     ///< as recorded in the context ("" when not pinned)
    std::string server_cpus;  ///< passed as --cpus ("" when the server keeps the inherited mask)
    std::string downstream_cpus;
    unsigned load_cpu_count = 0;
};

/// What starting and stopping a run's servers went through.
struct servers_outcome {
    bool started = false;
    std::string message;
};

/// What runs the load once the servers are up.
using server_body = std::function<void(run_options&, const server_process&)>;

/// A fresh server for one arm (and a fresh downstream server and database when the scenario asks for them), the
/// run options aimed at it, then the servers stopped. `body(run_options&, const server_process&)` does the load.
/// Returns what went wrong starting (`started` false) or stopping them.
servers_outcome with_servers(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                             const server_body& body);

/// One scenario under one arm on a fresh server (and a fresh downstream server when the scenario asks for one).
/// Writes nothing: the caller files the outcome.
run_outcome run_one(const suite_options& o, const scenario& s, const arm_spec& a, const run_order& order,
                    const pinning& pins);

/// The profiled trial of one scenario under one arm, on a fresh server, written to `out_dir/profile/`; never filed
/// with the measured trials.
void profile_one(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                 const std::optional<run_record>& measured);

}  // namespace execbench::load::detail
