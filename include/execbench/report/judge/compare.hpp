#pragma once

#include "execbench/core/result.hpp"
#include "execbench/stats/bootstrap.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::report {

/// What `bench-report compare OLD NEW` compares.
struct compare_options {
    std::filesystem::path old_dir;  ///< a results folder (any name, as read_suite reads) or a root of such folders
    std::filesystem::path new_dir;
    std::string old_run;  ///< only runs whose run id or git revision starts with this ("" = latest)
    std::string new_run;
    double threshold_percent = 5;  ///< a change counts only when the whole interval is beyond ± this
    bool allow_scale_mismatch = false;
};

/// The verdict on one metric of one scenario × arm.
/// unchanged: the interval lies within ± the threshold; inconclusive: it reaches past the threshold on one side
/// without lying wholly beyond it.
enum class change { improved, regressed, unchanged, inconclusive, too_few_trials, not_sampled };

/// "improved", "regressed", ...
const char* to_string(change c);

/// One headline metric, NEW against OLD.
struct metric_change {
    std::string label;  ///< e.g. "latency p99"
    std::string unit;   ///< e.g. "ms"; "" for a count
    std::string column;
    bool higher_is_better = false;
    double old_median = 0;
    double new_median = 0;
    stats::ratio_interval ratio;  ///< median(new) / median(old), with its 95 % bootstrap interval
    change verdict = change::unchanged;
};

/// One scenario × arm present on both sides.
struct arm_comparison {
    std::string suite;
    std::string scenario;
    std::string arm;
    std::string old_run_id;
    std::string new_run_id;
    unsigned old_trials = 0;  ///< usable (not generator-bound) trials
    unsigned new_trials = 0;
    std::vector<metric_change> metrics;
};

/// Everything compared.
struct comparison {
    std::string old_label;
    std::string new_label;
    double threshold_percent = 5;
    std::vector<arm_comparison> rows;
    std::vector<std::string> only_one_side;  ///< "suite/scenario/arm: only in OLD" and the like
    std::vector<std::string> warnings;       ///< e.g. OLD and NEW are the same runs
    /// How many metrics got `c`.
    [[nodiscard]] unsigned count(change c) const;
};

/// Compares the latest (or selected) run of every scenario × arm found in both folders: for each headline metric
/// (wall time for a burst, else req/s; latency p50 and p99; errors + unsent; server RSS max and CPU avg) the ratio
/// of the medians NEW / OLD with its bootstrap interval, and a verdict. Fails on bad input: a missing folder, no
/// scenario × arm in common, no comparable metric, or different load scales without allow_scale_mismatch.
result<comparison> compare_results(const compare_options& options);

}  // namespace execbench::report
