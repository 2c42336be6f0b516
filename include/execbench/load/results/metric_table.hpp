#pragma once

#include <string>
#include <string_view>
#include <vector>

// What each metric of the results is, written once: its column, the label every page, verdict and comparison shows,
// its unit, which way is better and what decides whether it can rank arms. report/ (winners, compare, the pages,
// the headline and the charts) reads these rows rather than restating them.
namespace execbench::load {

/// Which way a metric is better.
enum class better { higher, lower };

/// What decides whether a metric can rank arms at all.
enum class metric_source {
    requests,        ///< counted by the load generator: always measured
    per_second,      ///< over whole seconds of the trial: one bucket in a trial under 2 s says nothing
    server_sampled,  ///< from the server samples: needs enough samples per trial
    /// From the server samples and growing with the work done (CPU max, memory, context switches): ranks only where
    /// every arm completed the same number of requests.
    server_equal_work,
    client_set,  ///< set by the load generator's own settings (sockets = its connections): never ranked
    evidence,    ///< shown beside the figures (the kernel's counters, the generator's CPU), never a verdict
};

/// One metric of the results.
struct metric_info {
    std::string column;  ///< its CSV column, e.g. "latency_millis_p99" (load/run/metric_names.hpp)
    std::string label;   ///< e.g. "latency p99"
    std::string unit;    ///< e.g. "ms"; "" for a count
    better direction = better::lower;
    metric_source source = metric_source::requests;
    /// Ranked in the winners table (every metric whose source can decide, and sockets, listed as never ranked).
    [[nodiscard]] bool ranked() const noexcept { return source != metric_source::evidence; }
};

/// Every metric with a label, in the order the winners table lists the ranked ones.
const std::vector<metric_info>& metric_table();

/// The row of `column`; throws std::out_of_range for a column the table does not hold (a programming error).
const metric_info& metric_of(std::string_view column);

}  // namespace execbench::load
