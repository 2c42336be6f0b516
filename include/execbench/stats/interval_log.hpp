#pragma once

#include "execbench/core/result.hpp"
#include "execbench/stats/histogram.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::stats {

/// One line of an HdrHistogram interval log: a tagged histogram of the values recorded in a time interval.
struct log_interval {
    std::string tag;           ///< "" for an untagged line; never holds ',', ' ' or a line break
    double start_seconds = 0;  ///< from the log's BaseTime
    double length_seconds = 0;
    histogram values{};
};

/// The header of an interval log as HdrHistogram's HistogramLogWriter writes it: `comments` (each given a '#'),
/// the format version, `#[StartTime: …]`, `#[BaseTime: …]` (both `start_epoch_ms`) and the CSV legend. Interval
/// start times are then seconds from the BaseTime.
std::string format_log_header(std::int64_t start_epoch_ms, const std::vector<std::string>& comments);
/// One interval line: `Tag=<tag>,<start>,<length>,<max>,<histogram>` (seconds with 3 decimals, the max divided by
/// `max_unit_ratio`, the histogram in the compressed V2 encoding as base64). Fails on a tag HdrHistogram's reader
/// would split.
result<std::string> format_log_interval(const log_interval& interval, double max_unit_ratio = 1000.0);

/// The times an interval log's lines count from, as far as read.
struct log_times {
    double start_time_seconds = 0;  ///< since the epoch (the StartTime comment, else the first interval)
    double base_time_seconds = 0;   ///< what interval starts count from (BaseTime, else deduced as HdrHistogram does)
};

/// An interval line as read, its histogram still encoded (views into the log's text).
struct log_line {
    std::string_view tag;      ///< "" for an untagged line
    double start_seconds = 0;  ///< from the BaseTime
    double length_seconds = 0;
    std::string_view payload;  ///< the histogram field: decode_log_payload (hdr_codec.hpp) reads it
};

/// Called for each interval line with the log's times so far; an error stops the read.
using log_visitor = std::function<result<void>(const log_times&, const log_line&)>;

/// Reads an interval log (ours or HdrHistogram's) line by line without decoding histograms, so a long log costs no
/// more memory than its text. Comments and the legend are skipped; a line that is not an interval, or an error from
/// `visit`, fails the whole read as "interval log line N: …" rather than being dropped as HdrHistogram's reader does.
result<log_times> scan_interval_log(std::string_view text, const log_visitor& visit);

/// An interval log read back whole.
struct interval_log {
    log_times times;
    std::vector<log_interval> intervals;
};
/// Reads an interval log and decodes every histogram (scan_interval_log for long logs).
result<interval_log> parse_interval_log(std::string_view text);

}  // namespace execbench::stats
