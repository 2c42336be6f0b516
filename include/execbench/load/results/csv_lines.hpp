#pragma once

#include "execbench/core/result.hpp"
#include "execbench/core/text.hpp"  // fixed(), which the CSV writers use beside csv_field

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

// The one CSV module of the results files: quoting, reading, and appending rows under a header, with a file that an
// earlier version wrote widened to the current columns instead of refused.
namespace execbench::load {

/// A parsed CSV file (RFC 4180 quoting), for tests and reports.
struct csv_table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    /// Index of a column, or -1.
    [[nodiscard]] int column(std::string_view name) const;
};
/// Reads a CSV file; the error names the file and the row whose field count differs from the header's.
result<csv_table> read_csv(const std::filesystem::path& file);

}  // namespace execbench::load

namespace execbench::load::detail {

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(std::string_view v);

/// How rows under a header go into an existing file.
enum class column_fit {
    fresh,  ///< the file is missing or empty: the header is written first
    same,   ///< the file has exactly these columns
    wider,  ///< the header adds columns to the file's (an earlier version's file): it is rewritten under the header
};
/// Whether rows under `header` (one line, without its line break) can go into `file`. Fails naming a column the file
/// has and `header` lacks: that file holds figures this version has no place for.
result<column_fit> fit_columns(const std::filesystem::path& file, std::string_view header);
/// Opens `file` for appending rows under `header`, creating its folder; writes the header into a new file, and
/// rewrites an earlier version's file under it first, its rows' new cells left empty (empty reads as not measured).
result<void> open_rows(const std::filesystem::path& file, std::string_view header, std::ofstream& out);
/// Appends `lines` to `file` under `header` (open_rows).
result<void> append_lines(const std::filesystem::path& file, const std::string& header,
                          const std::vector<std::string>& lines);

}  // namespace execbench::load::detail
