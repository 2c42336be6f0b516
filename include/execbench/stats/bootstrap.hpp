#pragma once

#include <cstdint>
#include <span>

namespace execbench::stats {

/// How many resamples `ratio_of_medians` draws unless told otherwise.
inline constexpr unsigned default_resamples = 10'000;

/// The seed every bootstrap starts from: the same samples always give the same interval.
inline constexpr std::uint64_t default_bootstrap_seed = 0x65786563'62656e63ull;  // "execbenc"

/// The ratio median(a) / median(b) with a 95 % percentile bootstrap confidence interval.
///
/// Method: draw `resamples` pairs of resamples, each of a and b separately and with replacement, at their own
/// sizes; compute the ratio of medians of each pair; the interval is the 2.5th and 97.5th percentile of those
/// ratios (nearest rank). Why this method: a suite runs few trials (3 to 10), and nothing says trial figures are
/// normal (latency tails are skewed, one slow trial is common), so a t-interval's assumptions do not hold; the
/// percentile bootstrap assumes only that the trials are independent draws of the same run, and works for any
/// statistic, here a ratio of medians.
///
/// Limits, plainly: with n = 3 to 5 trials a resampled median can only be one of the observed values, so the
/// interval's ends are themselves observed trial values (or ratios of them) and the interval is coarse; it cannot
/// be narrower than the spread of the middle trials, and with 3 trials it often spans nearly the whole range.
/// It tends to be too narrow rather than too wide for very small n, so a decided verdict from 3 trials is weaker
/// evidence than one from 10. Values must be non-negative: 0 / 0 counts as a ratio of 1 (both arms had none),
/// x / 0 as +infinity.
struct ratio_interval {
    double ratio = 1;  ///< median(a) / median(b) of the samples themselves
    double low = 1;    ///< 2.5th percentile of the bootstrap ratios
    double high = 1;   ///< 97.5th percentile
    /// True when the whole interval lies beyond 1 ± `margin` (as a factor, either way): the difference is also
    /// larger than what the machine's noise floor allows identical runs.
    [[nodiscard]] bool clears(double margin) const noexcept { return low > 1 + margin || high * (1 + margin) < 1; }
};

/// Ratio of the medians of `a` and `b` with its bootstrap interval (see ratio_interval); both must hold at least
/// one value. Deterministic: the generator starts from `seed` on every call.
ratio_interval ratio_of_medians(std::span<const double> a, std::span<const double> b,
                                unsigned resamples = default_resamples, std::uint64_t seed = default_bootstrap_seed);

/// The median of `a` with its 95 % percentile bootstrap interval, by the method and with the limits of
/// ratio_interval: the 2.5th and 97.5th percentile of the medians of `resamples` resamples (nearest rank).
struct median_interval {
    double median = 0;
    double low = 0;
    double high = 0;
};

/// Median of `a` with its bootstrap interval; all zero when `a` is empty. Deterministic, as ratio_of_medians.
median_interval median_with_interval(std::span<const double> a, unsigned resamples = default_resamples,
                                     std::uint64_t seed = default_bootstrap_seed);

}  // namespace execbench::stats
