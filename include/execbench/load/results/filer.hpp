#pragma once
// The one filer: every run bench-load and bench-suite make is put on disk by one of the three calls below, so each
// results file has one writer and one call that decides when it is written (Google Benchmark's one `Run` and its
// reporters; before, bench-suite composed its runs' files itself, beside bench-load's session).

#include "execbench/core/result.hpp"
#include "execbench/load/record/capacity_record.hpp"
#include "execbench/load/record/profile_record.hpp"
#include "execbench/load/record/run_record.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/results/server_timeline.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <vector>

namespace execbench::load {

/// The suite's per-second server timeline of a run: the servers' readings over its trials.
struct timeline_filing {
    std::filesystem::path file;
    const std::vector<detail::sampled_server>* servers = nullptr;
    std::chrono::milliseconds period{};
};

/// Where a fixed-rate run's files go; each part left unset is not written.
struct run_filing {
    /// The summary, trials, histograms and timeline files (`--out`, or a suite's `<suite>.csv`) and the context.
    std::optional<output_paths> results;
    /// One context line per server run (an interleaved suite's rounds, each already given the run's id); empty: the
    /// record's own line.
    std::vector<const run_record*> context_rounds;
    std::optional<std::filesystem::path> hlog;  ///< the trials as an HdrHistogram interval log
    std::optional<timeline_filing> server_timeline;
    /// bench-suite's ledger line of the run, written last: a run is in the ledger only once its files are whole.
    std::optional<std::filesystem::path> ledger;
    const suite_entry* entry = nullptr;
};

/// Files a fixed-rate run as `where` says; stops at the first file that cannot be written, naming it.
result<void> file_run(const run_record& r, const run_filing& where);
/// Files a capacity search beside the results set `out` (x.csv: x-capacity-steps.csv, x-capacity.csv): its steps and
/// summary line, and in x-context.jsonl the context of `first_step` (the run of its first step, which says where and
/// on what it ran) when given.
result<void> file_capacity(const capacity_record& c, const std::filesystem::path& out,
                           const run_record* first_step = nullptr);
/// Files a profiled trial: its flame graph, stacks and counts in `<dir>/profile/`.
result<void> file_profile(const profile_capture& c, const std::filesystem::path& dir);

}  // namespace execbench::load
