#pragma once
// Private to report/read: the steps of read_suite, one per results file of a suite folder (suite_files.cpp).

#include "execbench/core/result.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report::detail {

/// The latest run of each scenario × arm that `run_selector` selects: the ledger says which (bench-suite), or the
/// last summary row of each (plain bench-load results). Every arm seen goes into `arms`.
result<void> read_latest_runs(suite_data& d, const load::output_paths& paths, std::string_view run_selector,
                              std::set<std::string>& arms);
/// Capacity searches (bench-suite on scenarios with a "capacity" object): the latest of each scenario × arm.
result<void> read_capacity_searches(suite_data& d, std::set<std::string>& arms);
/// The shown runs whose rows were copied from another folder (`<stem>-reused.jsonl`), and from where.
result<void> read_reused(suite_data& d, const std::set<std::string>& shown);
/// Profiled trials (--profile): one per scenario × arm that ran, the latest written.
result<void> read_profiles(suite_data& d);
/// The execution models first, in core::model_names' order, then any other arm by name.
void order_arms(suite_data& d, const std::set<std::string>& arms);
/// The run ids the pages show: the latest runs and capacity searches.
std::set<std::string> shown_runs(const suite_data& d);
/// Each shown run's trials, and the one its charts show: the median trial by latency p99.
result<void> read_trials(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown);
/// The per-second rows of each run's charted trial from `file` (a timeline), into `member` of its run_view.
result<void> read_series(suite_data& d, const std::filesystem::path& file, load::row_kind kind,
                         std::vector<load::figure_map> run_view::*member);
/// The contexts of the shown runs (each run_view's, and the suite's in page order), and from them each scenario's
/// description and server settings. A line that is not a JSON object or names no run is skipped; one of a newer schema
/// fails.
result<void> read_contexts(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown);
/// The latency distribution of every trial merged: exact, as the histograms share one configuration.
result<void> read_spectra(suite_data& d, const std::filesystem::path& file, const std::set<std::string>& shown);

}  // namespace execbench::report::detail
