#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/record/run_record.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// How one scenario × arm ended: `behind` when it ran without errors but left open-loop requests unsent (the
/// server fell behind the schedule and did less work than asked).
/// A run's outcome; generator_bound: every trial was (the load generator, not the server, was the bottleneck), so
/// its figures are the generator's and no verdict uses them; stopped: a stop request (Ctrl-C, SIGTERM) ended it
/// before all its trials, which are kept. Ledgers from before `stopped` say `errors` for such a run.
enum class run_status { ok, behind, errors, failed, not_run, generator_bound, stopped };
std::string_view to_string(run_status s) noexcept;
std::optional<run_status> parse_run_status(std::string_view text) noexcept;

/// One line of the suite's ledger (`<suite>-runs.csv`).
struct suite_entry {
    std::string suite;
    std::string scenario;
    std::string model;
    run_status status = run_status::failed;
    std::string run_id;      ///< joins the bench-load results files; empty when nothing ran
    std::string started_at;  ///< ISO 8601 UTC
    double seconds = 0;      ///< wall time of this entry, server start and stop included
    std::string message;     ///< why it failed or was not run; request error counts for `errors`
    std::string arm;         ///< "" means the model (an entry made before its arm was named)
    bool capacity_search = false;  ///< a capacity search (its line is `message`), not a fixed-rate run; not in ledgers
    bool measured = false;         ///< that search found a capacity with its interval
    bool lower_bound = false;      ///< that search's capacity is a lower bound only
    bool connection_bound = false;  ///< that search measured the scenario's connections, not the server
    /// The arm's name, or the model when it has none.
    [[nodiscard]] const std::string& arm_name() const noexcept { return arm.empty() ? model : arm; }
};

/// The status of a run that produced a result: failed without trials, generator-bound when every trial was,
/// stopped when partial (a stop request ended it early), errors with request errors, behind with unsent requests,
/// ok otherwise.
run_status status_of(const run_record& r) noexcept;

/// A request count a ledger message opens with: requests unsent, or errors of one class.
struct ledger_figure {
    std::string name;           ///< its summary column: "requests_unsent" or "errors_<class>"
    double median = 0;          ///< over the trials
    std::optional<double> max;  ///< the most one trial had, when that is not the median
};
/// A run's unsent requests and errors, in summary column order; none when every trial had none.
std::vector<ledger_figure> ledger_figures(const run_record& r);
/// The figures as a message opens with them: "requests_unsent=150501 (max 150600), errors_reset=2".
std::string format_figures(const std::vector<ledger_figure>& figures);

/// A part of a ledger message: a figure, or a note as written. A message is parts, each followed by ", " or "; ".
struct message_part {
    std::string text;                     ///< as written
    std::optional<ledger_figure> figure;  ///< when the part is one (format_figures)
    std::string separator;                ///< ", " or "; " after it; "" after the last
};
/// The parts of a message, as every ledger so far wrote them: figures first, then notes (which may themselves hold
/// a separator, and are then split there).
std::vector<message_part> parse_message(std::string_view message);

/// Appends one line to a ledger (creating it with its header).
result<void> append_ledger(const std::filesystem::path& file, const suite_entry& e);
/// Reads a ledger back; the error names the line.
result<std::vector<suite_entry>> read_ledger(const std::filesystem::path& file);

}  // namespace execbench::load
