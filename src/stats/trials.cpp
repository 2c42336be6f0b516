#include "execbench/stats/trials.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace execbench::stats {

double spread::relative() const noexcept
{
    // The magnitude of the median, so a metric that happens to be negative still gets a non-negative spread.
    return median == 0 ? 0.0 : (max - min) / std::abs(median);
}

spread summarize(std::span<const double> values)
{
    // A NaN trial carries no measurement and would break the sort's ordering, so it is left out.
    std::vector<double> sorted;
    sorted.reserve(values.size());
    std::copy_if(values.begin(), values.end(), std::back_inserter(sorted), [](double v) { return !std::isnan(v); });
    if (sorted.empty())
        return {};
    std::sort(sorted.begin(), sorted.end());
    auto n = sorted.size();
    spread s;
    s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    s.min = sorted.front();
    s.max = sorted.back();
    return s;
}

bool is_noisy(const spread& s, double threshold) noexcept
{
    return s.relative() > threshold;
}

}  // namespace execbench::stats
