#pragma once

#include "execbench/load/engine/request.hpp"

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace execbench::load::detail {

/// Picks request kinds in proportion to their weights, interleaved (smooth weighted round robin), without
/// allocating per request.
class mix_wheel {
public:
    /// A wheel over `mix`, starting `offset` slots in (so threads do not all send the same kind first).
    mix_wheel(const std::vector<prepared_request>& mix, std::size_t offset)
    {
        unsigned g = 0;
        for (const auto& r : mix)
            g = std::gcd(g, r.weight);
        std::vector<long> weight, current(mix.size(), 0);
        long total = 0;
        for (const auto& r : mix) {
            weight.push_back(static_cast<long>(r.weight / g));
            total += weight.back();
        }
        for (long i = 0; i < total; ++i) {
            std::size_t best = 0;
            for (std::size_t k = 0; k < mix.size(); ++k) {
                current[k] += weight[k];
                if (current[k] > current[best])
                    best = k;
            }
            current[best] -= total;
            slots_.push_back(static_cast<std::uint32_t>(best));
        }
        cursor_ = offset % slots_.size();
    }

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
