#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results/csv_lines.hpp"  // read_csv and csv_table, read beside the writers
#include "execbench/load/results/paths.hpp"
#include "execbench/load/results/upgrade.hpp"  // every reader below brings its rows to the current schema there
#include "execbench/load/record/run_record.hpp"
#include "execbench/stats/histogram.hpp"

#include <filesystem>
#include <functional>
#include <map>
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
result<void> write_results(const run_record& r, const output_paths& paths, bool with_context = true);
/// Appends the run's context (`to_json(context_of(r))`, load/results/context.hpp) to the context file.
result<void> append_context(const run_record& r, const output_paths& paths);

/// A row of a summary file read back: each cell under its column's name, brought to the current schema
/// (load/results/upgrade.hpp). A row is a dictionary, not a struct of fields, because every reader walks it by the
/// names in load/metrics (metric_table(), and the open-ended errors_<class> columns); a figure an earlier version did
/// not measure is absent.
using summary_row = record_row;
/// The cell of `column` in a row; "" when the row has no such column.
std::string cell_of(const summary_row& row, std::string_view column);
/// A cell as a number: 0 when empty or not a number (a figure the run did not have).
double number_of(std::string_view cell);
/// Reads a summary file (summary_columns()), one row per run in the order written.
result<std::vector<summary_row>> read_summary(const std::filesystem::path& file);

/// Figures by column name, looked up by a column's string_view without a copy.
using figure_map = std::map<std::string, double, std::less<>>;

/// A row of a per-trial file read back: its run, and every figure as a number; an empty cell (a figure the trial did
/// not measure) is absent, not 0.
struct trial_row {
    std::string run_id;
    figure_map figures;
};
/// Reads a per-trial file (trial_columns()).
result<std::vector<trial_row>> read_trial_rows(const std::filesystem::path& file);

/// A row of a per-second file (a trial's timeline, or the server's samples) read back: its run and trial, and the
/// figures it holds. An empty cell is a figure the row does not have (a ramp's users in an open run): absent, not 0.
struct second_row {
    std::string run_id;
    unsigned trial = 0;
    figure_map figures;
};
/// Which rows of a per-second file a reader wants, by run and trial; an empty one wants every row.
using second_row_filter = std::function<bool(std::string_view run_id, unsigned trial)>;
/// Reads a per-second file of `kind` (timeline or server_timeline), the rows `wanted` only (the others are not
/// converted); fails when it has no run_id or trial column.
result<std::vector<second_row>> read_second_rows(const std::filesystem::path& file, row_kind kind,
                                                 const second_row_filter& wanted = {});

/// One line of a histograms file, read back.
struct histogram_record {
    std::string run_id;
    std::string scenario;
    std::string model;
    std::string arm;
    unsigned trial = 0;
    std::string series;  ///< "latency", "service" or "background_latency"
    stats::histogram histogram;
};
/// Reads a histograms file; lines starting with '#' are comments, a `# context` line says the schema of the run's
/// lines after it. The error names the line.
result<std::vector<histogram_record>> read_histograms(const std::filesystem::path& file);

}  // namespace execbench::load
