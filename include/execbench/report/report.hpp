#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results.hpp"
#include "execbench/load/suite.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// One scenario × model of a suite as the report shows it: the latest ledger line and, when it ran, its summary
/// row and the per-second series of its median trial.
struct run_view {
    std::string scenario;
    std::string model;
    load::run_status status = load::run_status::failed;
    std::string message;
    std::string run_id;
    std::map<std::string, std::string> summary;   ///< summary CSV column → value (empty when it did not run)
    unsigned chart_trial = 0;                     ///< the trial charted: median by latency p99
    std::string scale_note;                       ///< "run at 0.97 scale: ..." from the context ("" unscaled)
    std::vector<std::map<std::string, double>> timeline;          ///< that trial's timeline rows
    std::vector<std::map<std::string, double>> server_timeline;   ///< that trial's server samples per second
    [[nodiscard]] double number(std::string_view column) const;   ///< 0 when absent
    [[nodiscard]] bool ran() const noexcept { return !summary.empty(); }
    /// The issue-15 scale factor from the summary row; 1 when absent (runs from before it existed).
    [[nodiscard]] double scale() const;
};

/// Everything read from `results/<suite>/`.
struct suite_data {
    std::string name;
    std::filesystem::path dir;
    std::vector<std::string> scenarios;   ///< in run order
    std::vector<std::string> models;      ///< pool, fiber, loop first, then any other
    std::map<std::string, std::map<std::string, run_view>> runs;   ///< scenario → model → run
    std::map<std::string, std::string> descriptions;               ///< scenario → description (from the context)
    std::map<std::string, std::string> server_settings;            ///< scenario → "downstream separate (loop)" ...
    std::vector<std::string> contexts;    ///< context JSON of the runs shown, in order
};

/// Reads a suite folder written by bench-suite (or bench-load with --out <dir>/<suite>.csv): the latest run of
/// each scenario × model wins. The error names the file and line.
result<suite_data> read_suite(const std::filesystem::path& dir);

/// The suite folders under a results root (those holding `<name>.csv` or `<name>-runs.csv`), sorted.
std::vector<std::filesystem::path> suite_dirs(const std::filesystem::path& results_root);

/// A chart to draw: its PNG, the data the chart script draws it from, and that data's hash.
struct chart_job {
    std::filesystem::path png;
    std::string data_json;
    std::string hash;   ///< FNV-1a 64 of data_json, hex
};

/// A generated text file.
struct generated_file {
    std::filesystem::path path;
    std::string content;
};

/// Everything bench-report produces for a set of suites.
struct report_output {
    std::vector<generated_file> files;         ///< markdown pages
    std::vector<chart_job> charts;
    std::vector<generated_file> chart_lists;   ///< per suite `<suite>/charts.txt`: "<png> <hash>" per chart
    std::string readme_block;            ///< the headline table, without the markers
};

/// Where the report goes.
struct report_paths {
    std::filesystem::path docs_dir = "docs/results";   ///< <suite>.md and <suite>/*.png
    std::filesystem::path results_label = "results";   ///< how the results root is named in the pages
    std::vector<std::string> headline_suites{"reactive", "downstream", "default", "failure-modes"};
};

/// Builds the pages, the chart jobs and the README block. Pure: reads nothing, writes nothing.
report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths);

/// The markdown page of one suite.
std::string suite_markdown(const suite_data& suite, const report_paths& paths);

/// Replaces the text between `<!-- results:begin -->` and `<!-- results:end -->` with `block` (markers kept);
/// appends both markers and the block at the end when they are absent.
std::string replace_headline(std::string_view readme, std::string_view block);

/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(std::string_view data);

/// Writes every file and the README block, then draws the charts by running `python` on `chart_script` with a
/// JSON list of jobs (skipped when `python` is empty). A chart list file `<suite>/charts.txt` is written per suite
/// only after its charts were drawn, so a failed drawing leaves the report stale for --check.
result<bool> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python);

/// The generated files that are missing or differ from what `out` says they should be (README block included,
/// PNGs checked for existence and by the chart lists).
std::vector<std::string> stale_files(const report_output& out, const std::filesystem::path& readme);

}  // namespace execbench::report
