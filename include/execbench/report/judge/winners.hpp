#pragma once

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/read/trial_figures.hpp"
#include "execbench/stats/bootstrap.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

using load::better;
using load::metric_source;

/// One metric the winners table ranks: its row of the results' metric table (column, label, unit, direction and
/// source); a server_sampled metric needs min_server_samples per trial, a server_equal_work one ranks only where
/// every arm completed the same number of requests within tie_margin, else "unequal work".
using metric_rule = load::metric_info;

/// The metrics ranked per scenario: the ranked rows of load::metric_table(), in its order.
const std::vector<metric_rule>& winner_metrics();

/// The rule of one ranked column; throws std::out_of_range for a column that is not ranked (a programming error).
const metric_rule& winner_metric(std::string_view column);

/// What one scenario × metric cell concluded.
enum class verdict {
    winner,          ///< one arm ranks above every other
    shared,          ///< two or more arms tie with each other and each ranks above every remaining arm
    tie,             ///< no arm or group of arms ranks above the rest
    too_few_trials,  ///< an arm had fewer than min_verdict_trials usable trials
    not_sampled,     ///< a trial had fewer than min_server_samples server samples
    not_ranked,      ///< the metric cannot decide here (client-set, one per-second bucket, a 100 ms CPU max)
    unequal_work,    ///< a server_equal_work metric where the arms completed different numbers of requests
};

/// How the text of a cell reads ("tie", "too few trials", ...); the arm's name for a winner.
std::string_view to_string(verdict v);

/// Two arms compared on one metric.
struct pair_verdict {
    std::string first;  ///< in display order
    std::string second;
    stats::ratio_interval ratio;  ///< median(first) / median(second), with its 95 % interval
    std::string better;           ///< the arm ranked higher; "" for a tie
    bool by_failures = false;     ///< decided because one arm failed beyond failure_tolerance and the other did not
    failure_record failure;       ///< when by_failures: the lower arm's failures
    /// `ratio` is a ratio: both arms have the figure and neither is 0 (an arm that answered nothing has no CPU per
    /// request and 0 for its latency).
    bool measured = true;
};

/// One arm's trials in one scenario, every trial (generator-bound ones included).
struct arm_trials {
    std::vector<trial_row> trials;
};

/// One scenario: arm → its trials. Arms that failed or did not run are absent and take no part.
struct scenario_figures {
    std::string scenario;
    std::map<std::string, arm_trials> arms;
};

/// The verdict of one scenario × metric.
struct cell_verdict {
    verdict kind = verdict::tie;
    std::string winner;                              ///< when kind == winner
    std::vector<std::string> leaders;                ///< the winner, or the arms sharing the lead (display order)
    std::vector<pair_verdict> pairs;                 ///< every pair, when the metric could be ranked
    std::map<std::string, failure_record> failures;  ///< arm → its failed and unsent requests, when it had any
    /// The arms ranked below the leaders because they failed beyond failure_tolerance, in display order.
    [[nodiscard]] std::vector<std::string> demoted() const;
    /// True when a leader's lead over some arm rests on that arm's failures rather than on a measurement.
    [[nodiscard]] bool by_failures() const;
};

/// Smallest factor between two arms that can decide a pair: the A/A control (docs/methodology.md) found identical
/// arms within 1–2 % on throughput and median latency, so a smaller difference is a tie however narrow its interval.
inline constexpr double tie_margin = 0.02;

/// Compares every pair of `arms` (display order) on `rule`: the ratio of medians with its bootstrap interval; an
/// arm whose failed and unsent requests exceed failure_tolerance in some trial ranks below every arm without;
/// a server_equal_work metric is not ranked when the arms did different amounts of work; otherwise a pair is decided
/// only where the whole interval lies beyond 1 ± tie_margin (2 %). The cell's winner is the arm ranked above every
/// other; arms that tie with each other and each rank above every remaining arm share the lead; anything else is a tie.
cell_verdict judge(const std::map<std::string, arm_trials>& arms, const std::vector<std::string>& order,
                   const metric_rule& rule);

/// Per-scenario verdicts and the overall share of decided cells.
struct winners_table {
    std::vector<std::string> models;     ///< the arms, in display order
    std::vector<std::string> scenarios;  ///< scenarios where at least two arms ran, in display order
    std::map<std::string, std::map<std::string, cell_verdict>> cells;  ///< scenario → metric column → verdict
    std::map<std::string, unsigned> wins;                              ///< arm → cells won over all scenarios
    std::map<std::string, unsigned> shared_leads;                      ///< arm → cells whose lead it shared
    std::map<std::string, unsigned> wins_by_failures;  ///< arm → won cells where failures ranked an arm below it
    unsigned decided = 0;
    unsigned decided_by_failures = 0;  ///< decided cells where failures, not a measurement, ranked an arm below
    unsigned shared = 0;               ///< cells with a shared lead (counted apart from decided cells)
    unsigned ties = 0;
    unsigned too_few_trials = 0;
    unsigned not_sampled = 0;
    unsigned not_ranked = 0;
    unsigned unequal_work = 0;
    bool single_arm = false;  ///< fewer than two arms ran anywhere: no winners ("n/a")
    /// Arms sorted by wins (most first; equal counts in display order).
    [[nodiscard]] std::vector<std::string> ranking() const;
    /// Share of the decided cells won by `arm`, 0..1 (ties and cells without a verdict do not count).
    [[nodiscard]] double share(std::string_view arm) const;
};

/// Judges every metric of every scenario.
winners_table rank(const std::vector<scenario_figures>& scenarios, const std::vector<std::string>& models);

/// The figures of a suite for rank(): the trials of every arm that ran.
std::vector<scenario_figures> figures_of(const suite_data& suite);

}  // namespace execbench::report
