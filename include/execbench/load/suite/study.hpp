#pragma once

#include "execbench/core/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::load {

/// One suite of a study, as bench-suite would be told it: `--suite <suite>` followed by `args`.
struct study_step {
    std::string suite;
    std::string folder;             ///< under the results root; empty: the suite's name
    std::vector<std::string> args;  ///< bench-suite's flags for this suite: arms, order, seed, --fit-to-limits ...
    std::string about;              ///< why the suite is in the study, for the plan
    /// Folders of earlier steps whose finished pieces this step copies instead of running (bench-suite
    /// --reuse-from): the same scenario under the same arm and settings.
    std::vector<std::string> reuse;
    /// The folder it writes under the results root.
    [[nodiscard]] const std::string& folder_name() const noexcept { return folder.empty() ? suite : folder; }
};

/// A study (`studies/<name>.json`): suites in the order they run, each with the bench-suite flags it needs. The
/// trials, durations and scales come from the scenario files, so the file states everything a run needs.
struct study {
    std::string name;  ///< the file's stem
    std::string about;
    std::vector<study_step> steps;
};

/// Reads a study file; the error names the file and the field (an unknown key, a suite given twice, a flag that
/// a study may not set per suite, a "reuse" naming no earlier step's folder).
result<study> read_study(const std::filesystem::path& file);

}  // namespace execbench::load
