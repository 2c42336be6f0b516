#pragma once

#include <filesystem>
#include <string_view>

// Where every results file lives, in one header (docs/results-format.md describes each file). bench-load's files
// are named after its --out path `x.csv`; a suite's folder `results/<suite>/` holds them as `<suite>.csv` and so on,
// beside the suite's own files.
namespace execbench::load {

/// The files of one results set, all derived from the summary CSV path given with --out:
/// `x.csv`, `x-trials.csv`, `x-histograms.txt`, `x-timeline.csv`, `x-context.jsonl`.
struct output_paths {
    std::filesystem::path summary;
    std::filesystem::path trials;
    std::filesystem::path histograms;
    std::filesystem::path timeline;
    std::filesystem::path context;
};
output_paths output_paths_for(const std::filesystem::path& summary_csv);

/// The files of capacity searches beside a results set `x.csv` (bench-load --out x.csv; bench-suite's
/// `<suite>.csv`): every step in `x-capacity-steps.csv`, one line per search (outcome, capacity and interval) in
/// `x-capacity.csv` (docs/results-format.md, "Capacity files").
struct capacity_paths {
    std::filesystem::path steps;
    std::filesystem::path summary;
    std::filesystem::path context;  ///< the suite's context file, where each search's first step names its machine
};
capacity_paths capacity_paths_for(const std::filesystem::path& out);
/// The capacity files of a suite's results folder (`results/capacity` -> `capacity-capacity.csv`, ...) or of the
/// results file `x.csv` beside them.
capacity_paths capacity_paths_in(const std::filesystem::path& folder_or_csv);

/// The ledger of a suite: `<out_dir>/<suite>-runs.csv`.
std::filesystem::path ledger_path(const std::filesystem::path& out_dir, std::string_view suite);
/// The server's per-second samples a suite writes beside the bench-load results: `<suite>-server-timeline.csv`.
std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite);
/// The rows a suite copied from another folder instead of running them (bench-suite --reuse-from), one JSON line
/// each: `<out_dir>/<suite>-reused.jsonl`.
std::filesystem::path reused_path(const std::filesystem::path& out_dir, std::string_view suite);
/// Where a suite writes a run's interval log: `out_dir/hlog/<scenario>-<arm>.hlog`.
std::filesystem::path hlog_path(const std::filesystem::path& out_dir, std::string_view scenario, std::string_view arm);
/// `<out_dir>/profile/<scenario>-<arm>.<extension>`: `svg` (the flame graph), `folded` (its stacks) or `csv` (the
/// per-request counts), as docs/results-format.md describes them.
std::filesystem::path profile_path(const std::filesystem::path& out_dir, std::string_view scenario,
                                   std::string_view arm, std::string_view extension);

}  // namespace execbench::load
