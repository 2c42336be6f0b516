#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/run/capacity.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::load {

/// The files of capacity searches beside a results set `x.csv` (bench-load --out x.csv; bench-suite's
/// `<suite>.csv`): every step in `x-capacity-steps.csv`, one line per search (outcome, capacity and interval) in
/// `x-capacity.csv` (docs/results-format.md, "Capacity files").
struct capacity_paths {
    std::filesystem::path steps;
    std::filesystem::path summary;
};
capacity_paths capacity_paths_for(const std::filesystem::path& out);

/// A search with what it ran against: the labels its files carry.
struct capacity_record {
    std::string run_id;
    std::string scenario;
    std::string arm;
    std::string model;
    std::string slo;
    std::string connections;  ///< capacity_connections::describe()
    capacity_result result;
};

/// Appends the record's steps and its summary line (creating the files with a header when new); fails, writing
/// nothing more, when an existing file has other columns.
result<void> write_capacity(const capacity_record& r, const capacity_paths& paths);
/// Reads the files back, one record per summary line with its steps (matched by run_id). The error names the file
/// and what is wrong.
result<std::vector<capacity_record>> read_capacity(const capacity_paths& paths);

}  // namespace execbench::load
