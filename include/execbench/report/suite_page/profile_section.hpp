#pragma once

#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <string>

namespace execbench::report {

/// The profiled trial of each arm of scenario `sc` (bench-suite --profile): per-request counts side by side, the top
/// functions by self time and the flame graphs. Nothing when no arm was profiled.
page profile_section(const suite_data& s, const std::string& sc, const report_paths& paths);

}  // namespace execbench::report
