#include "execbench/load/scenario/ramp.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::load {

std::string_view to_string(ramp_profile p) noexcept
{
    switch (p) {
    case ramp_profile::stepped: return "stepped";
    case ramp_profile::smooth: return "smooth";
    case ramp_profile::sharp: return "sharp";
    case ramp_profile::stages: return "stages";
    }
    return "?";
}

std::optional<ramp_profile> parse_ramp_profile(std::string_view text) noexcept
{
    for (auto p : {ramp_profile::stepped, ramp_profile::smooth, ramp_profile::sharp, ramp_profile::stages})
        if (to_string(p) == text)
            return p;
    return std::nullopt;
}

double ramp_users_at(const std::vector<ramp_stage>& stages, duration t) noexcept
{
    double from = 0;
    duration start{};
    for (const auto& st : stages) {
        auto end = start + st.length;
        if (t < end) {
            if (st.length.count() <= 0)
                return st.target;
            double f = double((t - start).count()) / double(st.length.count());
            return from + (double(st.target) - from) * f;
        }
        from = st.target;
        start = end;
    }
    return from;
}

std::vector<ramp_stage> ramp_stages(ramp_profile profile, std::uint32_t users, duration length, std::uint32_t spikes)
{
    std::vector<ramp_stage> out;
    auto part = [&](double fraction) { return duration{static_cast<std::int64_t>(double(length.count()) * fraction)}; };
    switch (profile) {
    case ramp_profile::stepped:
        // Four steps over 80 % of the run, each a riser of 30 % and a tread of 70 % of the step; then down over 20 %.
        for (int step = 1; step <= 4; ++step) {
            auto level = static_cast<std::uint32_t>(std::llround(double(users) * step / 4.0));
            out.push_back({part(0.2 * 0.3), level});
            out.push_back({part(0.2 * 0.7), level});
        }
        out.push_back({part(0.2), 0});
        break;
    case ramp_profile::smooth:
        out.push_back({part(0.8), users});
        out.push_back({part(0.2), 0});
        break;
    case ramp_profile::sharp: {
        // Square spikes: each period jumps to the peak for its first half and drops to zero for the second.
        auto n = std::max<std::uint32_t>(spikes, 1);
        auto period = part(1.0 / n);
        for (std::uint32_t i = 0; i < n; ++i) {
            out.push_back({duration{0}, users});
            out.push_back({period / 2, users});
            out.push_back({duration{0}, 0});
            out.push_back({period - period / 2, 0});
        }
        break;
    }
    case ramp_profile::stages: break;
    }
    return out;
}

}  // namespace execbench::load
