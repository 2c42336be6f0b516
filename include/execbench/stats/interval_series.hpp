#pragma once

#include "execbench/core/result.hpp"
#include "execbench/stats/histogram.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace execbench::stats {

/// Histograms of consecutive equal intervals (execbench: seconds) at full precision, for interval logs. Values go
/// into one live histogram; when a later interval starts, the finished one is kept in HdrHistogram's V2 encoding
/// (tens to hundreds of bytes instead of a histogram's full array), so a long trial stays small. Values for an
/// interval already finished are still counted exactly, just more slowly. Not thread-safe: one per thread, merged
/// after the run.
class interval_series {
public:
    /// Every interval's histogram has this configuration (the default: 1 µs .. 1 h at 3 digits, as histogram's).
    explicit interval_series(std::int64_t lowest = 1, std::int64_t highest = 3'600'000'000, int significant_digits = 3);

    /// Records `value` in interval `index` (0-based).
    void record(std::size_t index, std::int64_t value);
    /// Adds another series' intervals to these, interval by interval; fails when the configurations differ.
    result<void> merge(const interval_series& other);
    /// Adds a whole histogram to interval `index`; fails when its configuration differs from the series'.
    result<void> add(std::size_t index, const histogram& h);

    /// One more than the last interval that holds a value (intervals before it may be empty); 0 when empty.
    [[nodiscard]] std::size_t size() const noexcept;
    /// The histogram of interval `index` (empty past the end).
    [[nodiscard]] histogram at(std::size_t index) const;

private:
    /// Keeps the live histogram in its encoded slot and empties it.
    void seal();

    histogram live_;
    std::size_t live_index_ = 0;
    std::vector<std::vector<std::uint8_t>> sealed_;  ///< V2 encodings; empty: nothing recorded in that interval
};

}  // namespace execbench::stats
