#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/schema.hpp"
#include "execbench/load/results/csv_lines.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

// The one upgrade path of the results files, beside their readers (as HdrHistogram_c checks its log's format version
// in one function): every reader hands each row here with the schema it states, and reads back a row of the current
// schema (load/record/schema.hpp). A rule of the kind "files written before X existed" lives in upgrade.cpp and
// nowhere downstream of it.
namespace execbench::load {

/// The results files whose rows are read back, each with its own columns and upgrade rules.
enum class row_kind {
    summary,          ///< x.csv
    trial,            ///< x-trials.csv
    timeline,         ///< x-timeline.csv
    server_timeline,  ///< <suite>-server-timeline.csv
    ledger,           ///< <suite>-runs.csv
    capacity,         ///< x-capacity.csv
    capacity_step,    ///< x-capacity-steps.csv
    profile,          ///< profile/<scenario>-<arm>.csv
    histogram,        ///< a line of x-histograms.txt, its fields under their names
};

/// A row of a results file: each cell under its column's name, as written; a column the file lacks is absent.
using record_row = std::map<std::string, std::string, std::less<>>;

/// The schema a `schema` cell (or a context line's "schema") states: unversioned_schema when empty. Fails, naming
/// `where` and both versions, when it is newer than this build reads, or not a version.
result<unsigned> schema_of(std::string_view cell, std::string_view where);

/// Brings `row`, written in schema `version` (at most schema_version), to the current schema in place: the columns
/// that version lacked get what they meant then (an arm is its model, a pipeline depth 1, ...), and its `schema`
/// cell says the current one. A figure an earlier version did not measure stays absent: it is not invented.
void upgrade(row_kind kind, record_row& row, unsigned version);

/// The `schema` cell of `row` read (schema_of) and the row upgraded: the call every reader makes on each row.
result<void> bring_to_current(row_kind kind, record_row& row, std::string_view where);

/// Which rows of a table a reader wants (by the raw cells, before any upgrade); an empty one wants every row.
using raw_row_filter = std::function<bool(const csv_table& table, const std::vector<std::string>& cells)>;
/// The rows of `table`, read from `file`, each its cells by column name brought to the current schema; only those
/// `wanted` are converted. The error names the file and line.
result<std::vector<record_row>> current_rows(const csv_table& table, row_kind kind, const std::filesystem::path& file,
                                             const raw_row_filter& wanted = {});
/// read_csv, then current_rows.
result<std::vector<record_row>> read_current_rows(const std::filesystem::path& file, row_kind kind,
                                                  const raw_row_filter& wanted = {});

}  // namespace execbench::load
