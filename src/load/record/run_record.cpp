#include "execbench/load/record/run_record.hpp"

#include <algorithm>

namespace execbench::load {

bool run_record::noisy() const noexcept
{
    return std::any_of(summary.begin(), summary.end(), [](const auto& m) { return m.noisy; });
}

bool run_record::had_errors() const noexcept
{
    return std::any_of(trials.begin(), trials.end(),
                       [](const auto& t) { return t.measured.foreground.count.error_total() > 0; });
}

bool run_record::refused_every_request() const noexcept
{
    return !trials.empty() && std::all_of(trials.begin(), trials.end(), [](const auto& t) {
        const auto& c = t.measured.foreground.count;
        return load::refused_every_request(double(c.ok), double(c.error_total()), double(c.http_errors()));
    });
}

bool run_record::had_unsent() const noexcept
{
    return std::any_of(trials.begin(), trials.end(),
                       [](const auto& t) { return t.measured.foreground.count.unsent > 0; });
}

const std::string& run_record::arm_name() const noexcept
{
    return arm.name.empty() ? server.model : arm.name;
}

std::size_t run_record::generator_bound_trials() const noexcept
{
    return static_cast<std::size_t>(
        std::count_if(trials.begin(), trials.end(), [](const auto& t) { return t.generator_bound; }));
}

}  // namespace execbench::load
