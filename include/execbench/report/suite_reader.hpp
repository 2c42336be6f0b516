#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results.hpp"
#include "execbench/load/suite.hpp"
#include "execbench/report/winners.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// One scenario × model of a suite as the report shows it: the latest ledger line and, when it ran, its summary
/// row and the per-second series of its median trial.
struct run_view {
    std::string scenario;
    std::string model;
    load::run_status status = load::run_status::failed;
    std::string message;
    std::string run_id;
    std::map<std::string, std::string> summary;   ///< summary CSV column → value (empty when it did not run)
    unsigned chart_trial = 0;                     ///< the trial charted: median by latency p99
    std::vector<std::map<std::string, double>> timeline;          ///< that trial's timeline rows
    std::vector<std::map<std::string, double>> server_timeline;   ///< that trial's server samples per second
    [[nodiscard]] double number(std::string_view column) const;   ///< 0 when absent
    [[nodiscard]] bool ran() const noexcept { return !summary.empty(); }
};

/// Everything read from `results/<suite>/`.
struct suite_data {
    std::string name;
    std::filesystem::path dir;
    std::vector<std::string> scenarios;   ///< in run order
    std::vector<std::string> models;      ///< pool, fiber, loop first, then any other
    std::map<std::string, std::map<std::string, run_view>> runs;   ///< scenario → model → run
    std::map<std::string, std::string> descriptions;               ///< scenario → description (from the context)
    std::map<std::string, std::string> server_settings;            ///< scenario → "downstream separate (loop)" ...
    std::vector<std::string> contexts;    ///< context JSON of the runs shown, in order
};

/// The models in display order before any other: the three execution models.
const std::vector<std::string>& known_models();

/// A CSV cell as a number: 0 when empty or not a number.
double to_number(const std::string& s);

/// Reads a suite folder written by bench-suite (or bench-load with --out <dir>/<suite>.csv): the latest run of
/// each scenario × model wins. The error names the file and line.
result<suite_data> read_suite(const std::filesystem::path& dir);

/// The suite folders under a results root (those holding `<name>.csv` or `<name>-runs.csv`), sorted.
std::vector<std::filesystem::path> suite_dirs(const std::filesystem::path& results_root);

/// The run of `model` in `scenario`, or nullptr.
const run_view* find_run(const suite_data& s, const std::string& scenario, const std::string& model);

/// True when at least one model ran `scenario`.
bool any_ran(const suite_data& s, const std::string& scenario);

/// Figures for the winners table: the models that ran, per scenario.
std::vector<scenario_figures> figures_of(const suite_data& s);

}  // namespace execbench::report
