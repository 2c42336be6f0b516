#pragma once

#include "execbench/report/paths.hpp"
#include "execbench/report/suite_reader.hpp"

#include <sstream>
#include <string>

namespace execbench::report {

/// The profiled trial of each arm of scenario `sc` (bench-suite --profile): per-request counts side by side, the top
/// functions by self time and the flame graphs. Nothing when no arm was profiled.
void profile_section(std::ostringstream& md, const suite_data& s, const std::string& sc, const report_paths& paths);

}  // namespace execbench::report
