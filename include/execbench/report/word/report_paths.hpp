#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::report {

/// Where the report goes.
struct report_paths {
    std::filesystem::path docs_dir = "docs/results";     ///< <suite>.md and <suite>/*.svg
    std::filesystem::path results_label = "results";     ///< how the results root is named in the pages
    std::string docs_link = "docs/results";              ///< docs_dir as the README links it
    std::string results_link = "../../results";          ///< the results root as the pages link it
    std::string methodology_link = "../methodology.md";  ///< the methodology as the pages link it
    /// Suites in the README headline (those on disk); every suite when none of them is.
    std::vector<std::string> headline_suites{"reactive", "downstream", "default", "failure-modes"};
};

}  // namespace execbench::report
