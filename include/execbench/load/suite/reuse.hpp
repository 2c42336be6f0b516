#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/arm_spec.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/suite/journal.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace execbench::load {

struct suite_options;

/// The folder of an earlier suite whose finished pieces a suite copies instead of running them again (bench-suite
/// --reuse-from, a study step's "reuse").
struct reuse_source {
    std::filesystem::path dir;
    std::string name;   ///< the folder's name, as the journal, the plan and the pages give it
    std::string study;  ///< the study both folders belong to; empty when given by --reuse-from
    /// The pieces the folder's suite will have run before this suite starts (an earlier step of the study), with
    /// their settings: the plan counts them as reused although the folder does not hold them yet.
    std::map<journal_key, std::string> planned;
};

/// What piece `kind` of scenario `s` (as prepared: overrides applied, fitted to the limits) under `arm` runs under,
/// as JSON: the scenario's whole content, its scale and time scale, the arm, the trial order, the CPUs, the
/// generator's threads and what else is written. Pieces of the same settings and sources measure the same thing.
/// Empty when the piece is never reused: its rate comes from a capacity search another folder holds.
std::string piece_settings(const suite_options& o, const scenario& s, const arm_spec& arm, journal_kind kind);

/// What a piece's done line records beside its key, taken just before the piece is filed: its settings and the
/// suite's file sizes now.
piece_facts facts_before_filing(const suite_options& o, const scenario& s, const arm_spec& arm, journal_kind kind);

/// The source holding piece `key` finished under `settings` that the suite can copy it from (with `planned_too`,
/// also one that will hold it by then); nullptr when none. A source qualifies only when every invocation into it
/// ran this build's sources and it ran the piece once, its done line recording its settings and byte ranges.
const reuse_source* reusable(const suite_options& o, const journal_key& key, const std::string& settings,
                             bool planned_too);

/// What reuse_piece did.
struct reuse_outcome {
    std::string from;     ///< the source folder copied from; empty: the piece runs here
    std::string refused;  ///< why a source holding it was not copied from (its files changed), or empty
};

/// Copies piece `key`'s rows from a source holding it finished under `settings` into the suite's folder, then
/// journals it as reused (naming the source) and notes it in `<suite>-reused.jsonl`. Each file gets the piece's
/// byte range of the source's file (the source journal's sizes before and after it), behind the source's header
/// line when the file is new here; the files are appended to, then the journal line written, so a kill in between
/// is undone on the next start like a run cut off. Fails only when the folder cannot be written.
result<reuse_outcome> reuse_piece(const suite_options& o, const journal_key& key, const std::string& settings);

}  // namespace execbench::load
