#include "execbench/report/read/trial_figures.hpp"

#include "execbench/load/metrics/metrics.hpp"

#include <algorithm>

namespace execbench::report {

namespace metric = load::metric;

namespace {

double value_or(const trial_row& t, std::string_view column, double fallback)
{
    auto it = t.find(column);
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
        if (auto it = t.find(column); it != t.end())
            out.push_back(it->second);
    return out;
}

double server_samples(const trial_row& trial)
{
    return value_or(trial, metric::server_samples, 0);
}

void add_derived_metrics(trial_row& trial)
{
    auto cpu = trial.find(metric::server_cpu_percent_avg);
    auto wall = trial.find(metric::wall_millis);
    if (cpu == trial.end() || wall == trial.end())
        return;
    if (auto v = load::cpu_seconds_per_1k_requests(cpu->second, wall->second, value_or(trial, metric::requests_ok, 0)))
        trial[std::string(cpu_seconds_per_1k_requests)] = *v;
}

failure_record failures_of(const std::vector<trial_row>& trials)
{
    failure_record f;
    double worst = 0;
    for (const auto& t : trials) {
        ++f.trials;
        auto errors = value_or(t, metric::requests_error, 0);
        auto unsent = value_or(t, metric::requests_unsent, 0);
        if (errors + unsent <= 0)
            continue;
        ++f.trials_with_any;
        auto total = t.find(metric::requests_total);
        bool over = total == t.end() || errors + unsent > failure_tolerance * (total->second + unsent);
        f.trials_over += over ? 1 : 0;
        if (errors + unsent > worst) {
            worst = errors + unsent;
            f.worst_errors = errors;
            f.worst_unsent = unsent;
        }
    }
    return f;
}

bool failed_or_unsent(const std::vector<trial_row>& trials)
{
    return failures_of(trials).over();
}

}  // namespace execbench::report
