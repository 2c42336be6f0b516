#include "execbench/stats/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace execbench::stats {

namespace {

/// SplitMix64: tiny, well mixed, and the same sequence on every platform (std::uniform_int_distribution is not).
class splitmix64 {
public:
    explicit splitmix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() noexcept
    {
        auto z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n) without modulo bias: draws below 2^64 mod n are rejected.
    std::size_t below(std::size_t n) noexcept
    {
        auto bound = static_cast<std::uint64_t>(n);
        auto threshold = (0 - bound) % bound;
        for (;;)
            if (auto x = next(); x >= threshold)
                return static_cast<std::size_t>(x % bound);
    }

private:
    std::uint64_t state_;
};

double median_in_place(std::vector<double>& v)
{
    auto n = v.size();
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (n % 2 == 1)
        return *mid;
    auto below = *std::max_element(v.begin(), mid);
    return (below + *mid) / 2;
}

double median_of(std::span<const double> values)
{
    std::vector<double> v(values.begin(), values.end());
    return median_in_place(v);
}

double ratio(double a, double b)
{
    if (b == 0)
        return a == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    return a / b;
}

void resample(std::span<const double> from, std::vector<double>& into, splitmix64& rng)
{
    into.resize(from.size());
    for (auto& x : into)
        x = from[rng.below(from.size())];
}

/// The 2.5th and 97.5th percentiles of `draws` by nearest rank: the smallest draw with at least 2.5 % of the draws
/// at or below it, and its mirror image.
std::pair<double, double> percentile_95(std::vector<double>& draws)
{
    std::sort(draws.begin(), draws.end());
    auto n = draws.size();
    auto lo = static_cast<std::size_t>(std::ceil(0.025 * double(n)));
    return {draws[lo == 0 ? 0 : lo - 1], draws[n - lo == 0 ? n - 1 : n - lo]};
}

}  // namespace

ratio_interval ratio_of_medians(std::span<const double> a, std::span<const double> b, unsigned resamples,
                                std::uint64_t seed)
{
    ratio_interval out;
    if (a.empty() || b.empty())
        return out;
    out.ratio = ratio(median_of(a), median_of(b));
    resamples = std::max(resamples, 1u);
    splitmix64 rng(seed);
    std::vector<double> ratios;
    ratios.reserve(resamples);
    std::vector<double> ra, rb;
    for (unsigned i = 0; i < resamples; ++i) {
        resample(a, ra, rng);
        resample(b, rb, rng);
        ratios.push_back(ratio(median_in_place(ra), median_in_place(rb)));
    }
    std::tie(out.low, out.high) = percentile_95(ratios);
    return out;
}

median_interval median_with_interval(std::span<const double> a, unsigned resamples, std::uint64_t seed)
{
    median_interval out;
    if (a.empty())
        return out;
    out.median = median_of(a);
    resamples = std::max(resamples, 1u);
    splitmix64 rng(seed);
    std::vector<double> medians, ra;
    medians.reserve(resamples);
    for (unsigned i = 0; i < resamples; ++i) {
        resample(a, ra, rng);
        medians.push_back(median_in_place(ra));
    }
    std::tie(out.low, out.high) = percentile_95(medians);
    return out;
}

}  // namespace execbench::stats
