#pragma once

#include <span>

namespace execbench::stats {

/// A metric across trials: the median and the range.
struct spread {
    double median = 0;
    double min = 0;
    double max = 0;
    /// (max - min) / median; 0 when the median is 0.
    [[nodiscard]] double relative() const noexcept;
};

/// Median (mean of the middle two for an even count), min and max of `values`; all zero when empty.
spread summarize(std::span<const double> values);

/// True when the range across trials exceeds `threshold` of the median (default 20 %): the result is noisy.
bool is_noisy(const spread& s, double threshold = 0.20) noexcept;

}  // namespace execbench::stats
