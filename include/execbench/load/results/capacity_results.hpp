#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/capacity_record.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {


/// Appends the record's steps and its summary line (creating the files with a header when new); fails, writing
/// nothing more, when an existing file has other columns.
result<void> write_capacity(const capacity_record& r, const capacity_paths& paths);
/// Reads the files back, one record per summary line with its steps (matched by run_id). The error names the file
/// and what is wrong.
result<std::vector<capacity_record>> read_capacity(const capacity_paths& paths);

/// The machine each search in `paths` ran on (machine_identity of its context line), by run_id; a search whose
/// context names no CPU, or a folder without a context file, is left out. Fails only on a line of a newer schema.
result<std::map<std::string, std::string>> capacity_machines(const capacity_paths& paths);

/// An arm's rate for a load that takes it from a capacity (`rate_from_capacity`), and where that came from.
struct capacity_rate {
    double rate = 0;      ///< requests per second: times × capacity
    double capacity = 0;  ///< the arm's measured capacity
    std::string run_id;   ///< the search that measured it
};
/// The rate of arm `arm` for `from`: its multiple of the capacity the arm's latest search of `from.capacity_of` in
/// `searches` (read from `file`) measured. Fails, naming the file and what to run, when there is no such search or
/// its figure is no measured capacity: a lower bound, or one the scenario's connections bounded, multiplied, would
/// be no overload of the model.
result<capacity_rate> rate_of_arm(const std::vector<capacity_record>& searches, const rate_from_capacity& from,
                                  std::string_view arm, const std::filesystem::path& file);

}  // namespace execbench::load
