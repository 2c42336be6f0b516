#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::report {

/// Which way a metric is better.
enum class better { higher, lower };

/// One metric the winners table ranks, by its summary CSV column.
struct metric_rule {
    std::string column;   ///< e.g. "latency_millis_p99"
    std::string label;    ///< e.g. "latency p99"
    better direction = better::lower;
};

/// The metrics ranked per scenario, after the Loom/WebFlux study: requests (ok count and per-second figures) and
/// sockets higher-is-better, everything else lower-is-better.
const std::vector<metric_rule>& winner_metrics();

/// One model's figure for one metric.
struct candidate {
    std::string model;
    bool had_errors = false;  ///< any failed request in the run
    double value = 0;
};

/// The best model for one metric: a model with request errors ranks below every model without; among equals the
/// metric decides. Returns "" (undecided) when there is no candidate or the best two are equal to three
/// significant digits.
std::string pick_winner(const std::vector<candidate>& candidates, better direction);

/// Per-scenario winners and the overall ranking by win count.
struct winners_table {
    std::vector<std::string> models;                                   ///< in display order
    std::vector<std::string> scenarios;                                ///< in display order
    std::map<std::string, std::map<std::string, std::string>> winner;  ///< scenario → metric column → model or ""
    std::map<std::string, unsigned> wins;                              ///< model → metrics won over all scenarios
    unsigned decided = 0;
    unsigned undecided = 0;
    /// Models sorted by wins (most first; ties by display order).
    [[nodiscard]] std::vector<std::string> ranking() const;
    /// Share of all ranked cells (decided and undecided) won by `model`, 0..1.
    [[nodiscard]] double share(std::string_view model) const;
};

/// Figures of one scenario: model → (column → value), and which models had request errors. Models missing from a
/// scenario (failed, not run) take no part in its ranking.
struct scenario_figures {
    std::string scenario;
    std::map<std::string, std::map<std::string, double>> values;
    std::map<std::string, bool> had_errors;
};

/// Ranks every metric of every scenario.
winners_table rank(const std::vector<scenario_figures>& scenarios, const std::vector<std::string>& models);

}  // namespace execbench::report
