#pragma once

#include "execbench/load/run/runner.hpp"
#include "execbench/load/record/slo.hpp"

#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// "fiber io-600 median of 5: total=600 ok=600 errors=0 wall=312ms rps=1923 p50=305ms p99=309ms rss_max=14MB"
std::string format_summary_line(const run_record& r);
/// The same for one trial ("fiber io-600 trial 2/5: ...").
std::string format_trial_line(const run_record& r, const trial_result& t);
/// One trial as one line of JSON for `--format json` (docs/results-format.md).
std::string format_trial_json(const run_record& r, const trial_result& t);
/// The summary as one line of JSON: median/min/max of every summary column, the error classes and the SLO verdicts.
std::string format_summary_json(const run_record& r, const std::vector<slo_verdict>& slo = {});
/// What to tell the user when the sampled server process used no CPU while it answered thousands of requests: the
/// pid was not the process that serves (a launcher, or workers that are not its descendants); empty otherwise.
std::optional<std::string> idle_server_warning(const run_record& r);

}  // namespace execbench::load
