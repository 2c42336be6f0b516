#pragma once

#include "execbench/load/record/run_context.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace execbench::report {

/// What produced a run: the code (the sources' digest, and the model implementation's), the build and the machine.
/// Runs of one provenance compare without a caveat; a figure from another names how it differs.
struct provenance {
    /// The sources the programs were built from: "sources <digest>" (core/build_info.hpp), or "revision <git>" for
    /// a run recorded before digests were.
    std::string sources;
    std::string build;    ///< "release, GNU 12.2.0"
    std::string cpu;      ///< "AMD EPYC 7B13 at 2,596 MHz"
    std::string kernel;
    auto operator<=>(const provenance&) const = default;
};

/// The provenance of one run, from its context.
provenance provenance_of(const load::run_context& c);

/// The digest of the implementation of the model an arm ran (the server's /health "implementation"): "" for a
/// server that names none (a cmd: arm) or a run recorded before it was.
std::string implementation_of(const load::run_context& c);

/// One run whose provenance is not the common one.
struct differing_run {
    std::string suite;
    std::string scenario;
    std::string arm;
    provenance from;
    std::string implementation;  ///< of its model, when it differs from the common runs' of that model
};

/// How the provenances of a set of runs split: the one most runs share, and every run of another.
struct provenance_split {
    provenance common;
    std::map<std::string, std::string> implementations;  ///< model → its implementation in the common runs
    std::size_t runs = 0;                                 ///< every run counted (rounds of one run count once)
    std::size_t agreeing = 0;                             ///< of which of the common provenance
    std::vector<differing_run> differing;                 ///< the rest, suite by suite in the order given
    [[nodiscard]] bool one() const noexcept { return differing.empty(); }
    /// The suites with a differing run, in the order given.
    [[nodiscard]] std::vector<std::string> differing_suites() const;
};

/// Splits the runs of `suites` by provenance: the common one is that of the most runs (ties: the newest sources).
provenance_split split_provenance(const std::vector<const suite_data*>& suites);

/// "sources 5d3fa0c1e2b4a697 (release, GNU 12.2.0), AMD EPYC 7B13 at 2,596 MHz, kernel 6.1.0-27-cloud-amd64".
/// A digest names the bytes built; a revision (older runs) names a commit, which a dirty checkout does not pin.
std::string describe(const provenance& p);
/// How `other` differs from `base`, naming only what differs: "sources 1a2b… instead of 5d3f…, 2,096 MHz CPU".
std::string difference(const provenance& base, const provenance& other);

}  // namespace execbench::report
