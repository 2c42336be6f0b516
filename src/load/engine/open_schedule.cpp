#include "execbench/load/engine/open_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load {

open_schedule::open_schedule(double rate, duration length, std::uint64_t mine, std::uint64_t total) noexcept
    : rate_(total == 0 ? 0 : rate * double(mine) / double(total)),
      cap_(static_cast<std::uint64_t>(std::floor(rate_ * std::chrono::duration<double>(length).count())))
{
}

open_schedule::time_point open_schedule::intended(std::uint64_t index) const noexcept
{
    return t0_ + std::chrono::duration_cast<duration>(std::chrono::duration<double>(double(index) / rate_));
}

std::uint64_t open_schedule::due(time_point now) const noexcept
{
    if (now < t0_)
        return 0;
    auto elapsed = std::chrono::duration<double>(now - t0_).count();
    return std::min<std::uint64_t>(cap_, static_cast<std::uint64_t>(std::floor(elapsed * rate_)) + 1);
}

open_schedule::time_point open_schedule::tick_end(time_point now, duration tick) const noexcept
{
    if (now < t0_ || tick.count() <= 0)
        return t0_ + tick;
    return t0_ + ((now - t0_) / tick + 1) * tick;
}

}  // namespace execbench::load
