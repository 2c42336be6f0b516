#pragma once

#include "execbench/core/result.hpp"
#include "execbench/stats/histogram.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace execbench::report {

/// What `bench-report merge LOGS…` reads.
struct merge_options {
    std::vector<std::filesystem::path> logs;  ///< HdrHistogram interval logs (bench-load --hlog, or any other)
    std::optional<double> from_seconds;       ///< window start, seconds after the earliest log's StartTime
    std::optional<double> to_seconds;         ///< window end, likewise
    std::optional<std::string> tag;           ///< only this tag (e.g. "fiber/latency"); default: every tag apart
};

/// One tag's intervals added up.
struct merged_series {
    std::string tag;            ///< "" for untagged lines
    stats::histogram values{};  ///< every interval of the tag inside the window, from every log
    std::size_t intervals = 0;
    std::size_t logs = 0;    ///< how many of the logs had an interval of this tag inside the window
    double first_start = 0;  ///< seconds after the window's origin
    double last_end = 0;
};

/// The merge: one histogram per tag.
struct merge_result {
    double origin_epoch_seconds = 0;    ///< the earliest StartTime of the logs: --from and --to count from here
    std::vector<merged_series> series;  ///< by tag, in the order the tags first appear
};

/// Adds up the intervals whose middle lies inside the window (from <= middle < to), across every log, tag by tag,
/// aligned on the logs' absolute times. The counts are exact: the sum of the intervals' counts, bucket by bucket, so
/// merging the logs of N generators gives the histogram of all their requests. Fails naming the file and line of a
/// bad log, a requested tag no log has, or a window no interval lies in.
result<merge_result> merge_logs(const merge_options& options);

/// A table: per tag the count, p50, p90, p99, p99.9 and max in milliseconds (values taken as microseconds), and the
/// window and logs it covers.
std::string format_merge(const merge_result& m);

}  // namespace execbench::report
