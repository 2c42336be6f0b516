#pragma once

#include "execbench/core/result.hpp"
#include "execbench/report/charts.hpp"
#include "execbench/report/headline.hpp"
#include "execbench/report/markdown.hpp"
#include "execbench/report/paths.hpp"
#include "execbench/report/suite_reader.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::report {

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

/// Builds the pages, the chart jobs and the README block. Pure: reads nothing, writes nothing.
report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths);

/// Writes every file and the README block, then draws the charts by running `python` on `chart_script` with a
/// JSON list of jobs (skipped when `python` is empty). A chart list file `<suite>/charts.txt` is written per suite
/// only after its charts were drawn, so a failed drawing leaves the report stale for --check.
result<bool> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python);

/// The generated files that are missing or differ from what `out` says they should be (README block included,
/// PNGs checked for existence and by the chart lists).
std::vector<std::string> stale_files(const report_output& out, const std::filesystem::path& readme);

}  // namespace execbench::report
