#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/results/reused_rows.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// A run's think time between a response and the next request, as its summary row states it.
struct think_time {
    load::duration min{};
    load::duration max{};
    /// "2s..4s", or "2s" when both are the same.
    [[nodiscard]] std::string text() const;
};

/// One scenario × model of a suite as the report shows it: the latest ledger line and, when it ran, its summary
/// row and the per-second series of its median trial.
struct run_view {
    std::string scenario;
    std::string model;
    std::string arm;  ///< the label pages and charts use
    load::run_status status = load::run_status::failed;
    std::string message;
    std::string run_id;
    /// Its summary file row, in the current schema (empty when it did not run); set through take_summary or
    /// set_cell, which type what the report reads of it.
    load::summary_row summary;
    /// Every cell of the summary that holds a figure, parsed once: a column absent or empty there is not in it.
    std::map<std::string, double, std::less<>> figures;
    std::optional<load::shape> shape;        ///< the load's shape; absent when the row names none
    bool noisy = false;                      ///< a figure's trials spread by more than 20 % of its median
    std::vector<std::string> noisy_metrics;  ///< those figures, in the order the row lists them
    bool partial = false;                    ///< a stop request ended it before all its trials
    think_time think;                        ///< none when the row states none
    double scale = 1;                        ///< the scale factor (--scale, --fit-to-limits); 1 when it did not run
    double time_scale = 1;                   ///< the share of its timeline it ran in (--time-scale); 1 as written
    bool tls = false;                        ///< its load went over TLS (the row's `tls` column)
    unsigned chart_trial = 0;                                    ///< the trial charted: median by latency p99
    std::vector<load::figure_map> trials;           ///< every trial row, for the verdicts
    std::vector<load::figure_map> timeline;         ///< that trial's timeline rows
    std::vector<load::figure_map> server_timeline;  ///< that trial's server samples per second
    std::vector<std::pair<double, double>> latency_spectrum;     ///< all trials merged: (percentile, ms)
    std::vector<std::pair<double, double>> service_spectrum;     ///< the same for service time
    std::optional<load::run_context> context;                    ///< its context, when recorded
    /// Takes its summary row as read, and types what the report reads of it.
    void take_summary(load::summary_row row);
    /// Sets one cell of the summary row (a row made in code), and retypes it.
    void set_cell(std::string_view column, std::string text);
    /// The figure of `column`; nothing when the row has none (not measured).
    [[nodiscard]] std::optional<double> figure(std::string_view column) const;
    [[nodiscard]] double number(std::string_view column) const;  ///< 0 when absent
    [[nodiscard]] std::string text(std::string_view column) const;  ///< "" when absent
    [[nodiscard]] bool ran() const noexcept { return !summary.empty(); }
    /// The server answered every request with an HTTP error status (load::refused_every_request of its figures).
    [[nodiscard]] bool refused_every_request() const;
    /// Why its figures are not the server's result, "" when they are (the one rule of pages, headline and
    /// verdicts): "generator-bound" when every trial was and the server did not refuse every request (then its
    /// errors are the result), or "awaits re-measurement" for a ramp whose timeline rows
    /// have no per-second generator CPU, recorded before the per-second check that finds a generator saturated at the
    /// ramp's peak only.
    [[nodiscard]] std::string not_a_result() const;
};

/// A scenario × arm's profiled trial (bench-suite --profile), never a result: its counts and top functions.
struct profile_view {
    load::profile_record record;
    std::vector<load::self_time> top;  ///< functions by self time, from the folded stacks (empty without them)
    bool flame_graph = false;          ///< `profile/<scenario>-<arm>.svg` exists
};

/// How the duration, warm-up and trials that ran compare with the scenario file's: every setting that differs
/// shorter (fewer trials, a shorter duration or warm-up), every one longer, or some each way.
enum class settings_change { shorter, longer, different };

/// "shorter", "longer", "shorter and longer".
const char* to_string(settings_change c);

/// Everything read from `results/<suite>/`.
struct suite_data {
    std::string name;  ///< the folder's name: the page is <name>.md
    std::string stem;  ///< the results files' base name: <stem>.csv, <stem>-runs.csv, ...
    std::filesystem::path dir;
    std::vector<std::string> scenarios;  ///< in run order
    std::vector<std::string> models;     ///< arm names: the models first (core::model_names), then any other
    std::map<std::string, std::map<std::string, run_view>> runs;  ///< scenario → model → run
    std::map<std::string, std::string> descriptions;              ///< scenario → description (from the context)
    std::map<std::string, std::string> server_settings;           ///< scenario → "downstream separate (loop)" ...
    std::vector<load::run_context> contexts;                      ///< of the runs shown, in order: every round of each (its own steal and load)
    /// scenario → the scenario file's own duration, warm-up and trials, when they differ from what ran
    std::map<std::string, std::string> file_settings;
    std::map<std::string, settings_change> file_change;  ///< scenario → which way what ran differs from its file
    std::vector<std::string> capacity_scenarios;         ///< scenarios with a capacity search, in run order
    /// scenario → arm → its latest capacity search (from `<stem>-capacity.csv` and its steps)
    std::map<std::string, std::map<std::string, load::capacity_record>> capacity;
    /// scenario → arm → its profiled trial, from `profile/<scenario>-<arm>.csv` and `.folded`
    std::map<std::string, std::map<std::string, profile_view>> profiles;
    /// scenario → arm → where its shown run's rows were copied from (`<stem>-reused.jsonl`, bench-suite
    /// --reuse-from): only runs the page shows
    std::map<std::string, std::map<std::string, load::reused_row>> reused;
};

/// Functions listed per arm in a profile's self-time table.
inline constexpr std::size_t top_functions = 8;

/// The models in display order before any other arm: the execution models, as core::model_names lists them.
const std::vector<std::string>& known_models();

/// The file a page links as the suite's raw data: `<stem>.csv`, or `<stem>-capacity.csv` for a suite of
/// capacity searches only (which writes no `<stem>.csv`).
std::string raw_results_file(const suite_data& s);

/// Reads a results folder, whatever its name: one written by bench-suite (`--out`, `--results-dir`) or by
/// bench-load (`--out <dir>/<any>.csv`). The latest run of each scenario × arm wins; with a `run_selector`, the
/// latest of those whose run id or git revision starts with it. The error names the file and line.
result<suite_data> read_suite(const std::filesystem::path& dir, std::string_view run_selector = {});

/// The base name of the results files in `dir`: its own name when `<dir>/<dir>.csv` or `-runs.csv` exists, else
/// the one `<stem>-runs.csv` / `<stem>-trials.csv` in it; "" when there is none or more than one.
std::string results_stem(const std::filesystem::path& dir);

/// Why `dir` is no results folder, for an error message: "no such folder", the results sets it holds when there
/// are several, or what a results folder holds.
std::string why_no_results(const std::filesystem::path& dir);

/// Compares each scenario's recorded settings with its file in `scenario_dir` (fills `file_settings`) and takes the
/// description of scenarios that never ran from there.
void add_scenario_files(suite_data& s, const std::filesystem::path& scenario_dir);

/// The suite folders under a results root (those with a results stem), sorted; the root itself when it is one.
std::vector<std::filesystem::path> suite_dirs(const std::filesystem::path& results_root);

/// The run of `model` in `scenario`, or nullptr.
const run_view* find_run(const suite_data& s, const std::string& scenario, const std::string& model);

/// The capacity searches of `scenario`, one per arm that searched it, in the suite's arm order.
std::vector<const load::capacity_record*> searches_of(const suite_data& s, const std::string& scenario);

/// True when at least one model ran `scenario`.
bool any_ran(const suite_data& s, const std::string& scenario);

/// The scale factors of the runs of `scenario` that ran, formatted ("0.97", "1"), each with its share of the
/// timeline when compressed ("1 in 0.2 of the time"): runs differing in either measured different loads.
std::set<std::string> scales_of(const suite_data& s, const std::string& scenario);
/// " (at 0.97 scale)" when any run of the scenario was scaled, naming each factor, and " (at 1 scale in 0.2 of the
/// time)" when compressed; "" otherwise.
std::string scale_suffix(const suite_data& s, const std::string& scenario);
/// "over TLS (P-256)" for a run whose load went over TLS (the key from its context: "over TLS" when it has none),
/// "" for cleartext.
std::string tls_label(const run_view& v);
/// " over TLS (P-256)" when the scenario's runs went over TLS, naming each key; "" for cleartext.
std::string tls_suffix(const suite_data& s, const std::string& scenario);

}  // namespace execbench::report
