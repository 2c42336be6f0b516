#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/capacity/capacity.hpp"
#include "execbench/load/distributed/processes.hpp"
#include "execbench/load/distributed/shard.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/record/slo.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// What a session does beyond where and how the trials run: bench-load's flags, bench-suite's defaults.
struct session_options {
    run_options run;
    bool allow_errors = false;    ///< run even when the pre-flight request fails (deliberate failure runs)
    std::vector<slo_gate> gates;  ///< --slo
    /// --processes: the trials run in bench-load shards of this plan; none: in this process.
    std::optional<process_run_options> shards;
    std::optional<shard_spec> shard;                    ///< --shard: this process is one share of a distributed run
    std::optional<std::int64_t> start_at;               ///< --start-at: the common start, ms since the epoch
    std::optional<std::filesystem::path> out;           ///< --out: the summary CSV, companions beside it
    std::optional<std::filesystem::path> hlog;          ///< --hlog
    std::optional<std::filesystem::path> shard_trials;  ///< a --processes shard's exact trials for its parent
    /// A message for the person at the terminal (bench-load prints it on standard error); null: silent.
    std::function<void(const std::string&)> note;
    /// A result line (bench-load prints it on standard output); null: none.
    std::function<void(const std::string&)> print;
    bool json = false;   ///< --format json: result lines as JSON objects
    bool quiet = false;  ///< --quiet: fewer notes, and the profiled trial runs without progress
    /// --capacity: execute() searches the highest rate that meets the plan's SLO instead of running the trials.
    std::optional<capacity_plan> capacity;
    bool profile = false;       ///< --profile: one more trial under perf after the measured ones
    std::string load_affinity;  ///< --cpus as the generator was pinned, for the results' context
};

/// How a run ended, as bench-load's exit status says it (README, "Exit codes").
enum class run_exit : int { ok = 0, errors = 1, slo_broken = 3, behind = 4 };

/// One scenario against one server, from the prepared scenario to the exit status: the target resolved and the
/// server probed once, the checks before the first request, the trials here or in --processes shards, the output
/// files, the SLO and the exit status. bench-load's main is its options and a session; bench-suite runs each
/// server's trials in one. Like Nighthawk's Process::run, it is the one owner of a run.
class session {
public:
    /// Resolves the target and probes the server, once; fails when the target cannot be used (a URL off this
    /// machine without allow_remote, a name that does not resolve).
    static result<session> open(scenario s, session_options o);

    [[nodiscard]] const scenario& scenario_used() const noexcept { return scenario_; }

    /// What runs against what, printed before the run (format_banner); `load` replaces the scenario's shape,
    /// warm-up and trials when something else sets them (a capacity search).
    [[nodiscard]] std::string banner(std::string_view load = {}) const;
    /// One request before the warm-up (a dead port or a wrong path would otherwise fail every request of the run),
    /// then what the server's /health, the port range and that request's latency say against the scenario, as
    /// notes. Fails when the request fails and errors are not allowed.
    result<void> preflight() const;
    /// What the server's /health and the local port range say against the scenario (a part of preflight(), and
    /// all that bench-suite asks of servers it started itself).
    [[nodiscard]] std::vector<std::string> warnings() const;
    /// An --out file of another version's columns would refuse the results after the run: fails before it.
    [[nodiscard]] result<void> check_outputs() const;

    /// The trials: here, or in `shards` (bench-load processes) merged into one run; waits for --start-at first.
    result<run_record> run() const;
    /// The summary line (text or JSON) with the SLO's verdicts; nothing for a run without trials.
    void summarize(const run_record& r, const std::vector<slo_verdict>& verdicts) const;
    /// --out, --hlog and a shard's trials file.
    [[nodiscard]] result<void> write(const run_record& r) const;
    /// One more trial with the server under perf (not a result), into the folder of --out; what cannot be
    /// profiled is a note and changes nothing else.
    void profile(const run_record& measured) const;
    /// The --slo gates on `r`; none without gates or trials.
    [[nodiscard]] std::vector<slo_verdict> judge(const run_record& r) const;
    /// Notes a partial run and the SLO's verdicts, and returns the exit status: a broken SLO (or gates and no
    /// trial), then failed requests or a partial run, then requests left unsent, else ok.
    run_exit finish(const run_record& r, const std::vector<slo_verdict>& verdicts) const;

    /// The whole run, in the order bench-load prints it: the banner, the --out check, the pre-flight, then either the
    /// trials (judged, summarised, written, profiled when asked, finished) or the capacity search with its files.
    /// Fails when the run cannot start; a run that started ends in its exit status.
    result<run_exit> execute() const;

private:
    session(scenario s, session_options o, run_target t);
    void note(const std::string& text) const;
    void print(const std::string& line) const;
    /// --capacity: the search on this session's target, a line per step and the capacity line last; --out gets
    /// the capacity files.
    run_exit search(const capacity_plan& plan) const;

    scenario scenario_;
    session_options options_;
    run_target target_;
};

}  // namespace execbench::load
