#pragma once
// Whether the arms of a scenario ran on equal terms, as facts: suite_page/parity_notes.hpp says it under the
// scenario.

#include "execbench/report/read/suite_reader.hpp"

#include <map>
#include <string>
#include <vector>

namespace execbench::report {

/// The server settings each arm's /health reported in one scenario, model aside (and the fields that describe the
/// moment rather than the server: status, version, address, in flight, the downstream's port).
struct settings_parity {
    std::map<std::string, std::map<std::string, std::string>> by_arm;  ///< arm → setting → value
    /// The settings whose value differs between arms, by name; a setting an arm did not report counts as differing.
    std::vector<std::string> differing;
};

/// The settings of the arms that ran `scenario`; empty for results recorded before arms.
settings_parity settings_parity_of(const suite_data& s, const std::string& scenario);

/// The contexts of runs in a suite's arms (lines written before arms existed name none).
std::vector<const load::run_context*> contexts_with_arms(const suite_data& s);

}  // namespace execbench::report
