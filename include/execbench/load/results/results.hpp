#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results/csv_lines.hpp"  // read_csv and csv_table, read beside the writers
#include "execbench/load/results/paths.hpp"
#include "execbench/load/run/run_result.hpp"
#include "execbench/stats/histogram.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Fails when a results file already there has a column this version does not write: checked before a run, so that
/// the run is not lost when its results cannot be appended. A file of an earlier version, whose columns this version
/// writes too, is widened to the current columns when the run is written (detail::open_rows).
result<void> check_appendable(const output_paths& paths);

/// Column names of the summary CSV (one row per run: medians, then spreads, then context).
std::vector<std::string> summary_columns();
/// Column names of the per-trial CSV.
std::vector<std::string> trial_columns();

/// Appends the run to every results file (creating them with a header when new, widening an earlier version's).
/// Fails, writing nothing more, when an existing file has a column this version does not write. Without
/// `with_context` the context line is left to the caller (an interleaved suite writes one per round).
result<void> write_results(const run_result& r, const output_paths& paths, bool with_context = true);
/// Appends the run's context (`to_json(context_of(r))`, load/results/context.hpp) to the context file.
result<void> append_context(const run_result& r, const output_paths& paths);

/// One line of a histograms file, read back.
struct histogram_record {
    std::string run_id;
    std::string scenario;
    std::string model;
    std::string arm;  ///< the model in files written before arms existed
    unsigned trial = 0;
    std::string series;  ///< "latency", "service" or "background_latency"
    stats::histogram histogram;
};
/// Reads a histograms file; lines starting with '#' are comments. The error names the line.
result<std::vector<histogram_record>> read_histograms(const std::filesystem::path& file);

}  // namespace execbench::load
