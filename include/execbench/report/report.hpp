#pragma once

#include "execbench/core/result.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::report {

/// A chart to draw: its SVG file (the one picture of it: the markdown shows it, the HTML page shows it by `<img>`),
/// the data the chart script draws it from, and that data's hash.
struct chart_job {
    std::filesystem::path file;
    std::string data_json;
    std::string hash;  ///< FNV-1a 64 of data_json, hex
};

/// A generated text file.
struct generated_file {
    std::filesystem::path path;
    std::string content;
};

/// Everything bench-report produces for a set of suites.
struct report_output {
    std::vector<generated_file> files;  ///< markdown pages
    std::vector<generated_file> html;   ///< HTML pages, each chart an `<img>` of its SVG file
    std::vector<chart_job> charts;
    std::vector<generated_file> chart_lists;  ///< per suite `<suite>/charts.txt`: "<svg> <hash>" per chart
    std::string readme_block;                 ///< the headline table, without the markers
    std::string readme_map;                   ///< the workload map's picture and answer ("" without a map suite)
};

/// Builds the pages and chart jobs of the suites named in `pages` (every suite when empty) and the README block
/// from all of `suites`. Pure: reads nothing, writes nothing.
report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths,
                           const std::vector<std::string>& pages = {});

/// The file that the README path `readme` names, through any symlinks, so the block is written into the target and
/// the link stays a link. An error naming what the path is when that is not a regular file (a device such as
/// /dev/null, a directory, a FIFO): bench-report never replaces one. A path that does not exist yet is fine.
result<std::filesystem::path> readme_target(const std::filesystem::path& readme);

/// Draws the charts whose data changed by running `python` on `chart_script` with a JSON list of jobs (skipped when
/// `python` is empty), then writes the pages, the chart lists and the README block, each through a temporary file.
/// A failed drawing writes nothing. The chart lists are written only with charts, so --no-charts leaves them stale.
/// An empty `readme` leaves every README alone (--no-readme); otherwise it is a `readme_target`.
result<void> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python);

/// The generated files that are missing or differ from what `out` says they should be (README block included,
/// chart SVGs checked for existence and by the chart lists; no README when `readme` is empty).
std::vector<std::string> stale_files(const report_output& out, const std::filesystem::path& readme);

}  // namespace execbench::report
