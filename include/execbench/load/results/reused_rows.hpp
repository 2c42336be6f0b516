#pragma once

#include "execbench/core/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::load {

/// A piece a suite copied from another folder instead of running it (bench-suite --reuse-from): a line of
/// `<suite>-reused.jsonl` (paths.hpp's reused_path).
struct reused_row {
    std::string scenario;
    std::string arm;
    std::string kind;    ///< "run", "capacity" or "profile"
    std::string run_id;  ///< the rows' run id, as in the folder they came from
    std::string from;    ///< that folder's name
    std::string study;   ///< the study both folders belong to; empty when given by --reuse-from
};

/// The row as one JSON line (no line end).
std::string to_json(const reused_row& r);
/// The rows of a reused file in order; none when it does not exist. A line that is not a JSON object (cut short) is
/// skipped.
result<std::vector<reused_row>> read_reused_rows(const std::filesystem::path& file);

}  // namespace execbench::load
