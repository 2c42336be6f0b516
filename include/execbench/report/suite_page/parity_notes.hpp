#pragma once
// Whether the arms of a scenario ran on equal terms, in words under it (judge/settings_parity.hpp finds the facts).

#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <string>

namespace execbench::report {

/// The page-context row on how the suite ordered its trials ("interleaved, seed 5; CPUs: server 0, generator 1"),
/// or "" for results recorded before arms, order and pinning were.
std::string order_text(const suite_data& s);

/// The notes under a scenario: the server settings (as each arm's /health reported them) that differ between arms,
/// and the arms with generator-bound trials. Nothing for results recorded before arms.
page arm_notes(const suite_data& s, const std::string& scenario);

}  // namespace execbench::report
