#pragma once

#include "execbench/report/paths.hpp"
#include "execbench/report/suite_reader.hpp"

#include <string>
#include <vector>

namespace execbench::report {

/// `v` with a fixed number of decimals.
std::string num(double v, int decimals = 0);

/// Milliseconds at a precision that suits their size.
std::string millis(double v);

/// Integers with thin grouping: 12,345.
std::string count(double v);

/// Text safe inside a markdown table cell: `|` escaped, newlines as spaces.
std::string cell_escape(std::string s);

/// A markdown table: header row, separator and rows, each cell as given (escape them first).
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// The markdown page of one suite.
std::string suite_markdown(const suite_data& suite, const report_paths& paths);

}  // namespace execbench::report
