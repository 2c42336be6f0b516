#include "execbench/stats/interval_series.hpp"

#include "execbench/stats/hdr_codec.hpp"

#include <algorithm>

namespace execbench::stats {

namespace {

/// Decodes an encoding this class wrote; it cannot be malformed.
histogram decode_own(const std::vector<std::uint8_t>& bytes)
{
    return std::move(decode_v2(bytes).value());
}

}  // namespace

interval_series::interval_series(std::int64_t lowest, std::int64_t highest, int significant_digits)
    : live_(lowest, highest, significant_digits)
{
}

void interval_series::seal()
{
    if (live_.count() == 0)
        return;
    if (sealed_.size() <= live_index_)
        sealed_.resize(live_index_ + 1);
    auto& slot = sealed_[live_index_];
    if (!slot.empty()) {
        // Late values for an interval that was sealed before.
        (void)live_.merge(decode_own(slot));
    }
    slot = encode_v2(live_);
    live_.reset();
}

void interval_series::record(std::size_t index, std::int64_t value)
{
    if (index != live_index_) {
        seal();
        live_index_ = index;
    }
    live_.record(value);
}

result<void> interval_series::merge(const interval_series& other)
{
    if (live_.lowest() != other.live_.lowest() || live_.highest() != other.live_.highest() ||
        live_.significant_digits() != other.live_.significant_digits())
        return fail("cannot merge interval series with different histogram configurations");
    for (std::size_t i = 0; i < other.size(); ++i)
        (void)add(i, other.at(i));  // same configuration: cannot fail
    return {};
}

result<void> interval_series::add(std::size_t index, const histogram& h)
{
    if (live_.lowest() != h.lowest() || live_.highest() != h.highest() ||
        live_.significant_digits() != h.significant_digits())
        return fail("an interval histogram's configuration differs from the series'");
    if (h.count() == 0)
        return {};
    seal();
    if (sealed_.size() <= index)
        sealed_.resize(index + 1);
    auto sum = h;
    if (!sealed_[index].empty())
        (void)sum.merge(decode_own(sealed_[index]));
    sealed_[index] = encode_v2(sum);
    return {};
}

std::size_t interval_series::size() const noexcept
{
    std::size_t n = sealed_.size();
    while (n > 0 && sealed_[n - 1].empty())
        --n;
    if (live_.count() > 0)
        n = std::max(n, live_index_ + 1);
    return n;
}

histogram interval_series::at(std::size_t index) const
{
    histogram h(live_.lowest(), live_.highest(), live_.significant_digits());
    if (index < sealed_.size() && !sealed_[index].empty())
        h = decode_own(sealed_[index]);
    if (index == live_index_)
        (void)h.merge(live_);
    return h;
}

}  // namespace execbench::stats
