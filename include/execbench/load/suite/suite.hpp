#pragma once

#include "execbench/core/cpus.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/core/result.hpp"
#include "execbench/load/profile/profiler.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/run/arm.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/overrides.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/suite/journal.hpp"
#include "execbench/load/suite/reuse.hpp"
#include "execbench/load/suite/server_process.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace execbench::load {

struct capacity_step;

/// Command-line arguments for bench-server from a scenario's `server.options` ("true" → a bare flag, "false" →
/// left out, anything else → `--name value`).
std::vector<std::string> server_option_args(const server_spec& spec);

/// How the trials of the arms follow each other: `interleaved` runs round after round, each round one trial of
/// every arm in a shuffled order, on a fresh server per arm and round; `blocked` runs all trials of one arm on one
/// server before the next arm.
enum class trial_order { interleaved, blocked };
std::string_view to_string(trial_order o) noexcept;
std::optional<trial_order> parse_trial_order(std::string_view text) noexcept;

/// The order of the arms in round `round` (1-based): a permutation of 0..arms-1 drawn from `seed` and the round
/// alone, so a seed reproduces every round on any machine.
std::vector<std::size_t> round_order(std::size_t arms, std::uint64_t seed, unsigned round);

/// Progress over a whole suite.
struct suite_progress {
    std::size_t index = 0;  ///< 1-based server run (scenario × arm × round)
    std::size_t count = 0;
    std::string scenario;
    std::string model;
    std::string arm;
    unsigned round = 1;  ///< interleaved: the round (one trial of every arm); blocked: 1
    unsigned rounds = 1;
    duration elapsed{};    ///< since the suite started
    duration remaining{};  ///< estimate for the runs left, this one included
    bool profiled = false;  ///< the extra trial under perf (--profile), not a result
};

/// A profiled trial's outcome (--profile): its capture, or why there is none.
struct profile_event {
    std::string scenario;
    std::string arm;
    const profile_capture* capture = nullptr;  ///< nullptr when it could not be taken
    std::string message;                       ///< why not, or what perf could not measure
    double unprofiled_rps = 0;                 ///< the arm's median req/s over its measured trials (0: none)
};

/// What a suite runs and where it writes.
struct suite_options {
    std::string suite;                   ///< results go to `out_dir/<suite>.csv` and its companions
    std::vector<scenario> scenarios;  ///< in run order, as their files say (the overrides are applied per run)
    std::vector<std::string> models{model_names.begin(), model_names.end()};  ///< one arm per model when `arms` is empty
    std::vector<arm_spec> arms;                                ///< what is compared, in this order in every table
    trial_order order = trial_order::interleaved;
    std::uint64_t seed = 1;    ///< shuffles the arms of each round
    cpu_list server_cpus;      ///< the server under test (--cpus); empty: not pinned
    cpu_list load_cpus;        ///< this process, the generator; empty: not pinned
    cpu_list downstream_cpus;  ///< a separate downstream server; empty: not pinned
    std::filesystem::path server_binary;  ///< bench-server
    std::filesystem::path out_dir;        ///< e.g. results/<suite>
    /// The capacity searches a load with `"rate": {"capacity_of": ...}` takes each arm's rate from (bench-suite's
    /// --capacity-from, by default results/capacity's files); read only when a scenario asks.
    capacity_paths capacity_from;
    overrides override_values;            ///< --duration, --warmup, --trials, --scale ...
    bool fit_to_limits = false;           ///< scale a scenario beyond the open-file limits to fit them
    unsigned threads = 1;                 ///< load-generator threads
    bool hlog = false;                    ///< also write `out_dir/hlog/<scenario>-<arm>.hlog` (load/hlog)
    /// After the measured trials of a scenario, one more per arm on a fresh server under perf, written to
    /// `out_dir/profile/` (load/profile_files) and kept out of every other file.
    bool profile = false;
    profile_options profiling;
    /// A command arm is ready when GET of this path answers 2xx; empty: when its port accepts a connection.
    std::string ready_path;
    std::chrono::milliseconds start_timeout{20'000};
    std::chrono::milliseconds stop_timeout{15'000};
    /// The one sampler of the server, per trial: its summary and the per-second timeline.
    std::chrono::milliseconds server_sample_period{100};
    const std::atomic<bool>* stop = nullptr;  ///< set (SIGINT) to end after the current run
    /// The folder's journal (load/suite/journal.hpp): what it holds as finished is skipped, and each scenario × arm
    /// filed whole is recorded in it; nullptr: no journal (every run runs, nothing is recorded).
    journal* record = nullptr;
    /// Folders of earlier suites (--reuse-from, a study step's "reuse"): a piece one holds finished under the same
    /// settings and sources is copied from it, not run (load/suite/reuse.hpp); needs `record`.
    std::vector<reuse_source> reuse_from;
    /// After a piece was copied from a reuse source (key, the source's name); or, `from` empty, when a source held
    /// it but its files could not be copied exactly (`why`), and it runs.
    std::function<void(const journal_key&, const std::string& from, const std::string& why)> on_reuse;
    /// Before each run.
    std::function<void(const suite_progress&)> on_run_start;
    /// Forwarded from load::run while a run goes on.
    std::function<void(const progress_event&)> on_progress;
    /// After each step of a capacity search (scenario, arm, step); steps of different arms never overlap.
    std::function<void(const std::string&, const std::string&, const capacity_step&)> on_capacity_step;
    /// After each run, with its ledger line and (when it ran) its result; a capacity search's line has no result.
    std::function<void(const suite_entry&, const run_record*)> on_run_done;
    /// After each profiled trial (--profile), written or not.
    std::function<void(const profile_event&)> on_profile_done;
};


/// What a suite did, counted for its closing line.
struct suite_outcome {
    std::size_t ok = 0, behind = 0, errors = 0, failed = 0, not_run = 0, generator_bound = 0, stopped = 0;
    /// searches_measured includes searches_connection_bound: measured, but at the scenario's connections' limit.
    std::size_t searches = 0, searches_measured = 0, searches_connection_bound = 0, searches_lower_bound = 0,
                searches_failed = 0;

    /// "3 run(s): 2 ok, ...; 1 capacity search(es): ..." as bench-suite's last line says it.
    [[nodiscard]] std::string text() const;
    /// A run or a capacity search failed (bench-suite's exit status says so).
    [[nodiscard]] bool any_failed() const noexcept { return failed > 0 || searches_failed > 0; }
};
/// Counts the ledger entries of a suite run by status.
suite_outcome tally(const std::vector<suite_entry>& entries);

/// One scenario of a suite's plan (bench-suite --plan), and what the progress's estimate starts from.
struct planned_scenario {
    std::string scenario;
    bool capacity = false;       ///< a capacity search (the arms' steps take turns), not a fixed-rate run
    std::size_t arms = 0;        ///< the arms it runs under
    std::size_t arms_left = 0;   ///< of those, the ones the folder's journal does not hold as finished
    std::size_t reused = 0;      ///< pieces a reuse source holds (or will hold): copied, not run, no time
    unsigned rounds = 1;         ///< server runs per arm (interleaved: one per trial; blocked or a search: one)
    std::size_t runs = 0;        ///< server runs left: arms_left × rounds, plus profiled trials
    duration estimate{};         ///< the runs left, end to end
    std::string basis;           ///< how `estimate` was reached: "files", "measured" or "files x1.07 (...)"
    std::string not_runnable;    ///< why it will not run here (beyond the open-file limits), or empty
    std::string scale;           ///< the scale it runs at (or, not runnable, would with --fit-to-limits), or empty
    std::string time_scale;      ///< the share of its timeline it runs in (--time-scale), or empty
};

/// What a suite will run and how long it should take.
struct suite_plan {
    std::vector<planned_scenario> scenarios;
    std::size_t runs = 0;  ///< server runs left
    duration total{};      ///< their estimate
    std::size_t done = 0;  ///< scenario × arm pieces the journal holds as finished
    std::size_t reused = 0;                ///< pieces left that a reuse source holds or will hold: no time
    std::vector<std::string> reused_from;  ///< those sources' names, in the order given
};

/// The suite's plan, from the scenario files (their trials, warm-ups, lengths and pauses, a capacity search's steps)
/// and, where the folder's journal holds them, the measured wall times of finished pieces: a scenario × arm that ran
/// before is expected to take what it took, and the files' estimates of the rest are scaled by how far the measured
/// pieces were from theirs. Runs nothing.
result<suite_plan> plan_suite(const suite_options& options);

/// Every piece the suite runs (each scenario within the open-file limits × arm, and its profiled trial with
/// --profile) with its settings (piece_settings; pieces never reused left out): what a later step of a study may
/// count on it holding.
result<std::map<journal_key, std::string>> suite_piece_settings(const suite_options& options);

/// "1 h 12 min", "7.6 min", "38 s": a plan's length as the plan and the progress print it.
std::string format_length(duration d);

/// Runs every scenario under every arm, each on a fresh server (and a fresh downstream server when the scenario
/// asks for a separate one), in the order `order` says; interleaved trials of one arm are merged into one result.
/// A run that cannot start or fails is recorded in the ledger and the suite goes on; a scenario beyond the
/// open-file limit is recorded as not run, or run scaled to fit with `fit_to_limits`. Fails only when nothing can
/// be written or a scenario does not parse.
result<std::vector<suite_entry>> run_suite(const suite_options& options);

}  // namespace execbench::load
