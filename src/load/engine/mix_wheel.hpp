#pragma once

#include "execbench/load/engine/prepared_request.hpp"

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace execbench::load::detail {

/// Picks request kinds in proportion to their weights, interleaved (smooth weighted round robin), without
/// allocating per request.
class mix_wheel {
public:
    /// A wheel over the requests of `mix` that are in it `at` after the load's start (their `from` and `until`),
    /// starting `offset` slots in (so threads do not all send the same kind first). Empty when none is.
    mix_wheel(const std::vector<prepared_request>& mix, std::size_t offset, duration at = {})
    {
        std::vector<std::uint32_t> kinds;
        unsigned g = 0;
        for (std::uint32_t k = 0; k < mix.size(); ++k) {
            if (mix[k].from > at || mix[k].until <= at)
                continue;
            kinds.push_back(k);
            g = std::gcd(g, mix[k].weight);
        }
        std::vector<long> weight, current(kinds.size(), 0);
        long total = 0;
        for (auto k : kinds) {
            weight.push_back(static_cast<long>(mix[k].weight / g));
            total += weight.back();
        }
        for (long i = 0; i < total; ++i) {
            std::size_t best = 0;
            for (std::size_t k = 0; k < kinds.size(); ++k) {
                current[k] += weight[k];
                if (current[k] > current[best])
                    best = k;
            }
            current[best] -= total;
            slots_.push_back(kinds[best]);
        }
        cursor_ = slots_.empty() ? 0 : offset % slots_.size();
    }

    /// No request is in the mix at the wheel's moment.
    [[nodiscard]] bool empty() const noexcept { return slots_.empty(); }

    /// The index in the mix of the next request to send.
    std::uint32_t next() noexcept
    {
        auto s = slots_[cursor_];
        if (++cursor_ == slots_.size())
            cursor_ = 0;
        return s;
    }

private:
    std::vector<std::uint32_t> slots_;
    std::size_t cursor_ = 0;
};

}  // namespace execbench::load::detail
