#pragma once

// The results files' schema version. Every file a run writes states it: a `schema` cell ending each CSV row, a
// "schema" key in each context line (and so in the histograms file's `# context` lines). load/results/upgrade reads
// it back and brings a row of an earlier version to this one; raise it when a file gains a column whose absence a
// reader must tell apart, or a cell changes meaning, and add the rule that brings the previous version up there.
namespace execbench::load {

/// The schema this build writes, and the newest it reads.
inline constexpr unsigned schema_version = 4;
/// The schema of a row or line that states none: every file written before the files stated one.
inline constexpr unsigned unversioned_schema = 1;

}  // namespace execbench::load
