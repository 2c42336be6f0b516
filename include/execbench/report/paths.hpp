#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::report {

/// Where the report goes.
struct report_paths {
    std::filesystem::path docs_dir = "docs/results";   ///< <suite>.md and <suite>/*.png
    std::filesystem::path results_label = "results";   ///< how the results root is named in the pages
    std::vector<std::string> headline_suites{"reactive", "downstream", "default", "failure-modes"};
};

}  // namespace execbench::report
