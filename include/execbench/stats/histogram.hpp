#pragma once

#include "execbench/core/result.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::stats {

/// A log-linear latency histogram in the style of HdrHistogram: values from `lowest` to `highest` are kept with
/// `significant_digits` decimal digits of precision in fixed memory, and histograms with the same configuration
/// merge exactly. Values are integers in the caller's unit (execbench records microseconds).
/// Not thread-safe: one per thread, merged after the run.
/// As in HdrHistogram, `lowest` is also the smallest step told apart (rounded down to a power of two), so the stated
/// precision holds from `lowest * 10^significant_digits` up; with the default `lowest` of 1 that is every value.
class histogram {
public:
    /// 1 µs .. 1 h at 3 significant digits unless told otherwise; throws std::invalid_argument on a bad config.
    explicit histogram(std::int64_t lowest = 1, std::int64_t highest = 3'600'000'000, int significant_digits = 3);

    /// Records one value; values outside the range are clamped to it (and counted in `clamped()`).
    void record(std::int64_t value) noexcept;
    /// Records `count` occurrences of `value`.
    void record(std::int64_t value, std::uint64_t count) noexcept;
    /// Adds another histogram's counts; fails when the configurations differ.
    result<void> merge(const histogram& other);
    /// Forgets all values.
    void reset() noexcept;

    [[nodiscard]] std::uint64_t count() const noexcept;
    [[nodiscard]] std::uint64_t clamped() const noexcept;
    /// Smallest and largest recorded values (exact, not bucketed); 0 when empty.
    [[nodiscard]] std::int64_t min() const noexcept;
    [[nodiscard]] std::int64_t max() const noexcept;
    [[nodiscard]] double mean() const noexcept;
    /// The value at `percentile` (0..100): the highest value equivalent to the bucket holding that rank; 0 if empty.
    [[nodiscard]] std::int64_t value_at_percentile(double percentile) const noexcept;

    [[nodiscard]] std::int64_t lowest() const noexcept { return lowest_; }
    [[nodiscard]] std::int64_t highest() const noexcept { return highest_; }
    [[nodiscard]] int significant_digits() const noexcept { return digits_; }

    /// A compact, versioned text form (one line, no newline) that `parse` reads back exactly.
    [[nodiscard]] std::string serialize() const;
    /// Reads what `serialize` wrote; the error says what is malformed.
    static result<histogram> parse(std::string_view text);

    /// The bucket counts in HdrHistogram's index order (what its encodings carry); trailing buckets may be empty.
    [[nodiscard]] const std::vector<std::uint64_t>& counts() const noexcept { return counts_; }
    /// A histogram rebuilt from bucket counts alone (a decoded HdrHistogram encoding): as HdrHistogram does, min and
    /// max become the lowest and highest value equivalent to the first and last non-empty buckets, and the mean is
    /// taken from each bucket's middle. Fails on a bad configuration or more counts than the configuration has.
    static result<histogram> from_counts(std::int64_t lowest, std::int64_t highest, int significant_digits,
                                         const std::vector<std::uint64_t>& counts);

    friend bool operator==(const histogram& a, const histogram& b) noexcept;

private:
    // Index arithmetic, as in HdrHistogram: a value's bucket comes from its highest set bit.
    [[nodiscard]] std::size_t counts_index(std::int64_t value) const noexcept;
    [[nodiscard]] std::int64_t lowest_equivalent_at(std::size_t index) const noexcept;
    [[nodiscard]] std::int64_t highest_equivalent_at(std::size_t index) const noexcept;

    std::int64_t lowest_;
    std::int64_t highest_;
    int digits_;
    // Layout fields and counts are private details of the implementation.
    int unit_magnitude_ = 0;
    int sub_bucket_half_count_magnitude_ = 0;
    std::int64_t sub_bucket_count_ = 0;
    std::int64_t sub_bucket_half_count_ = 0;
    std::int64_t sub_bucket_mask_ = 0;
    int bucket_count_ = 0;
    std::vector<std::uint64_t> counts_;
    std::uint64_t total_ = 0;
    std::uint64_t clamped_ = 0;
    std::int64_t min_ = 0;
    std::int64_t max_ = 0;
    // Sum of recorded values; x86 long double holds integers exactly up to 2^64, so merges stay exact in practice.
    long double sum_ = 0;
};

}  // namespace execbench::stats
