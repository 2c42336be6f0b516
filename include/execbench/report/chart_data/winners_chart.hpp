#pragma once
// The suite's winners chart: the verdict of each metric × scenario cell (chart_verdicts.py draws it).

#include "execbench/report/read/suite_reader.hpp"

#include <nlohmann/json.hpp>

namespace execbench::report {

/// The data of the suite's winners chart (per metric × scenario: the verdict of the winners rules, the runner-up and
/// the lead over it in percent), or null when no cell was ranked.
nlohmann::json winners_chart_data(const suite_data& s);

}  // namespace execbench::report
