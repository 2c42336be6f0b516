#include "execbench/report/trial_figures.hpp"

#include "execbench/load/run/metric_names.hpp"

#include <algorithm>
#include <cmath>

namespace execbench::report {

namespace metric = load::metric;

namespace {

double value_or(const trial_row& t, std::string_view column, double fallback)
{
    auto it = t.find(std::string(column));
    return it == t.end() ? fallback : it->second;
}

}  // namespace

std::vector<trial_row> usable_trials(const std::vector<trial_row>& trials)
{
    std::vector<trial_row> out;
    std::copy_if(trials.begin(), trials.end(), std::back_inserter(out),
                 [](const trial_row& t) { return value_or(t, load::column::generator_bound, 0) != 1; });
    return out;
}

std::vector<double> values_of(const std::vector<trial_row>& trials, std::string_view column)
{
    std::vector<double> out;
    for (const auto& t : trials)
        if (auto it = t.find(std::string(column)); it != t.end())
            out.push_back(it->second);
    return out;
}

double server_samples(const trial_row& trial)
{
    if (auto it = trial.find(std::string(metric::server_samples)); it != trial.end())
        return it->second;
    // The sampler of these results ran at bench-load's default 10 Hz; the estimate can only be low by the
    // connection set-up time outside the wall time, which is what matters for the bursts it is used on.
    constexpr double period_millis = 100;
    return 2 + std::floor(value_or(trial, metric::wall_millis, 0) / period_millis);
}

bool failed_or_unsent(const std::vector<trial_row>& trials)
{
    return std::any_of(trials.begin(), trials.end(), [](const trial_row& t) {
        return value_or(t, metric::requests_error, 0) > 0 || value_or(t, metric::requests_unsent, 0) > 0;
    });
}

}  // namespace execbench::report
