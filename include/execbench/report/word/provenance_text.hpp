#pragma once

#include "execbench/report/judge/provenance.hpp"

#include <string>

namespace execbench::report {

/// A suite page's provenance: "one: every run from sources … ; model implementations …", or the runs most share
/// and then exactly which rows differ and how ("io-600 × pool, fiber: sources 1a2b…, 2,096 MHz").
std::string provenance_rows_text(const provenance_split& p);

/// A suite page's rows copied from other folders (bench-suite --reuse-from), scenario by scenario: "hot-path-30k ×
/// pool, fiber, loop, coro: the hot-path folder's runs (same study), not re-run beside nginx"; empty when none were.
std::string reused_rows_text(const suite_data& s);

/// The README's provenance clause over many suites: the one provenance when every run agrees; otherwise the common
/// one with the count of runs that share it, and each suite with runs of another, with how many rows and how they
/// differ (its page lists the rows). `†` marks them in hand-written text (readme_citations).
std::string provenance_caption(const provenance_split& p);

}  // namespace execbench::report
