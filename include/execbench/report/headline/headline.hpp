#pragma once

#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// The suites the headline shows: the listed headline suites found in `suites`, or every suite when none is.
std::vector<const suite_data*> headline_suites(const std::vector<suite_data>& suites, const report_paths& paths);

/// The headline of the headline suites: built from every suite given, whatever subset of pages is being written.
/// The README shows it between its markers, the HTML index under "Headline".
page headline_page(const std::vector<suite_data>& suites, const report_paths& paths);

/// The headline as the README's markdown between its markers.
std::string headline_block(const std::vector<suite_data>& suites, const report_paths& paths);

/// The key verdicts of a suite in the headline's words, one line per scenario (of `only`, or every one when
/// empty) and key metric (latency p99, req/s, CPU per request): "io-600 latency p99 — fiber = loop: 2.98×
/// (2.93–3.00) lower than pool". Scenarios where fewer than two arms ran have none.
std::vector<std::string> verdict_summary(const suite_data& s, const std::vector<std::string>& only = {});

/// The verdict_summary lines under their one-line legend, as bench-suite prints them; nothing without a verdict.
page verdicts_page(const suite_data& s, const std::vector<std::string>& only = {});

/// Replaces the text between `<!-- results:begin -->` and `<!-- results:end -->` with `block` (markers kept);
/// appends both markers and the block at the end when they are absent.
std::string replace_headline(std::string_view readme, std::string_view block);

/// Replaces the text between `<!-- map:begin -->` and `<!-- map:end -->` with `block` (the workload map's picture
/// and answer, near the README's top); a README without both markers is returned unchanged.
std::string replace_map_block(std::string_view readme, std::string_view block);

/// The README's hand-written lines (outside the generated blocks) that cite a suite's page
/// (`docs/results/<suite>.md`) whose runs are not all of the common provenance of `suites`, without the `†` that
/// labels such a figure: one message per line, naming it and how the suite's runs differ. bench-report --check
/// fails on any.
std::vector<std::string> unlabelled_citations(std::string_view readme, const std::vector<const suite_data*>& suites);

}  // namespace execbench::report
