#pragma once

#include "execbench/report/judge/winners.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <string>

namespace execbench::report {

/// The one sentence that opens a scenario's section, from the run's verdicts and counts only: the latency p99
/// verdict with its 95 % interval (without one, each arm's median and trial range and why there is no verdict),
/// req/s and CPU per request where they are decided, goodput against capacity, the most requests in flight where the
/// arms differ by more than a fifth (one queued), and the counts that show how an arm failed (errors by class, unsent
/// requests, listen overflows and SYN retransmits). "" when no arm ran.
std::string finding_sentence(const suite_data& s, const winners_table& w, const std::string& scenario);

}  // namespace execbench::report
