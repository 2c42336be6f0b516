#include "execbench/report/judge/compare.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/read/trial_figures.hpp"
#include "execbench/stats/trials.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

namespace execbench::report {

namespace metric = load::metric;
namespace column = load::column;

const char* to_string(change c)
{
    switch (c) {
    case change::improved: return "improved";
    case change::regressed: return "regressed";
    case change::unchanged: return "unchanged";
    case change::inconclusive: return "inconclusive";
    case change::too_few_trials: return "too few trials";
    case change::not_sampled: return "not sampled";
    }
    return "?";
}

unsigned comparison::count(change c) const
{
    unsigned n = 0;
    for (const auto& r : rows)
        for (const auto& m : r.metrics)
            n += m.verdict == c ? 1 : 0;
    return n;
}

namespace {

/// The column the failure count is computed into: errors and unsent requests count alike.
constexpr const char* failures_column = "requests_error+requests_unsent";

struct headline_metric {
    std::string label;
    std::string column;
    bool higher_is_better;
    bool server_sampled;
    std::string unit;  ///< "" for a count
};

/// The headline metrics of a run; the first is wall time for a burst and req/s for every other shape. Labels and
/// directions are the metric table's; the server's figures are labelled as such beside the client's.
std::vector<headline_metric> headline_metrics(bool burst)
{
    auto of = [](std::string_view column, std::string_view prefix = "") {
        const auto& m = load::metric_of(column);
        // The server's figures are the columns named server_* (metric_names.hpp); they need server samples.
        bool server = std::string_view(m.column).starts_with("server_");
        return headline_metric{std::string(prefix) + m.label, m.column, m.direction == load::better::higher, server,
                               m.unit};
    };
    return {
        of(burst ? metric::wall_millis : metric::requests_per_second),
        of(metric::latency_millis_p50),
        of(metric::latency_millis_p99),
        {"errors + unsent", failures_column, false, false, ""},
        of(metric::server_rss_mb_max, "server "),
        of(metric::server_cpu_percent_avg, "server "),
    };
}

/// One run as compare needs it: its summary texts and its trials.
struct run_rows {
    std::string run_id;
    std::string shape;
    double scale = 1;
    std::vector<trial_row> trials;
};

/// A results folder's runs: scenario → arm → the chosen run, under the suite's name as its files give it.
struct suite_runs {
    std::string name;
    std::map<std::string, std::map<std::string, run_rows>> runs;
};

/// The runs of a results folder, read as `bench-report --results` reads it (read_suite): the latest selected run
/// of each scenario × arm that ran.
result<suite_runs> read_runs(const std::filesystem::path& dir, const std::string& selector)
{
    auto suite = read_suite(dir, selector);
    if (!suite)
        return suite.err();
    suite_runs out;
    out.name = suite->stem;
    for (const auto& [sc, arms] : suite->runs)
        for (const auto& [arm, v] : arms) {
            if (!v.ran())
                continue;  // its latest run failed or did not run: nothing measured to compare
            run_rows r;
            r.run_id = v.run_id;
            r.shape = v.shape ? std::string(load::to_string(*v.shape)) : std::string{};
            r.scale = v.scale;
            r.trials = v.trials;
            for (auto& t : r.trials)
                t[failures_column] = t[std::string(metric::requests_error)] + t[std::string(metric::requests_unsent)];
            out.runs[sc][arm] = std::move(r);
        }
    return out;
}

/// suite name → folder: the folder itself when it is a results folder, else the results folders under it.
result<std::map<std::string, std::filesystem::path>> suites_in(const std::filesystem::path& dir)
{
    auto clean = dir.lexically_normal();
    if (clean.filename().empty())
        clean = clean.parent_path();
    std::map<std::string, std::filesystem::path> out;
    for (const auto& d : suite_dirs(clean))
        out[d.filename().string()] = d;
    if (out.empty())
        return fail(dir.string() + ": " + why_no_results(clean));
    return out;
}

change verdict_of(const stats::ratio_interval& r, bool higher_is_better, double threshold)
{
    auto up = 1 + threshold / 100, down = 1 - threshold / 100;
    if (r.low > up)
        return higher_is_better ? change::improved : change::regressed;
    if (r.high < down)
        return higher_is_better ? change::regressed : change::improved;
    // Unchanged only when the whole interval lies within ± the threshold; one that reaches past it is no answer.
    return r.low >= down && r.high <= up ? change::unchanged : change::inconclusive;
}

arm_comparison compare_arm(const run_rows& old_run, const run_rows& new_run, double threshold)
{
    arm_comparison a;
    a.old_run_id = old_run.run_id;
    a.new_run_id = new_run.run_id;
    auto old_trials = usable_trials(old_run.trials);
    auto new_trials = usable_trials(new_run.trials);
    a.old_trials = static_cast<unsigned>(old_trials.size());
    a.new_trials = static_cast<unsigned>(new_trials.size());
    bool few = a.old_trials < min_verdict_trials || a.new_trials < min_verdict_trials;
    auto unsampled = [](const std::vector<trial_row>& ts) {
        return std::any_of(ts.begin(), ts.end(),
                           [](const trial_row& t) { return server_samples(t) < min_server_samples; });
    };
    bool burst = new_run.shape == "burst" || (new_run.shape.empty() && old_run.shape == "burst");
    for (const auto& h : headline_metrics(burst)) {
        metric_change m;
        m.label = h.label;
        m.unit = h.unit;
        m.column = h.column;
        m.higher_is_better = h.higher_is_better;
        auto ov = values_of(old_trials, h.column);
        auto nv = values_of(new_trials, h.column);
        m.old_median = stats::summarize(ov).median;
        m.new_median = stats::summarize(nv).median;
        if (few || ov.empty() || nv.empty()) {
            m.verdict = change::too_few_trials;
        } else if (h.server_sampled && (unsampled(old_trials) || unsampled(new_trials))) {
            m.verdict = change::not_sampled;
        } else {
            m.ratio = stats::ratio_of_medians(nv, ov);
            m.verdict = verdict_of(m.ratio, h.higher_is_better, threshold);
        }
        a.metrics.push_back(std::move(m));
    }
    return a;
}

}  // namespace

result<comparison> compare_results(const compare_options& o)
{
    if (!(o.threshold_percent >= 0 && o.threshold_percent < 100))
        return fail("--threshold must be a percentage from 0 to under 100");
    auto old_suites = suites_in(o.old_dir);
    if (!old_suites)
        return old_suites.err();
    auto new_suites = suites_in(o.new_dir);
    if (!new_suites)
        return new_suites.err();
    // Two suite folders are compared with each other whatever their names; two roots suite by suite.
    std::vector<std::tuple<std::string, std::filesystem::path, std::filesystem::path>> pairs;
    if (old_suites->size() == 1 && new_suites->size() == 1)
        pairs.emplace_back(new_suites->begin()->first, old_suites->begin()->second, new_suites->begin()->second);
    else
        for (const auto& [name, dir] : *new_suites)
            if (auto it = old_suites->find(name); it != old_suites->end())
                pairs.emplace_back(name, it->second, dir);

    comparison c;
    c.old_label = o.old_dir.string() + (o.old_run.empty() ? "" : " @ " + o.old_run);
    c.new_label = o.new_dir.string() + (o.new_run.empty() ? "" : " @ " + o.new_run);
    c.threshold_percent = o.threshold_percent;
    for (const auto& [folder, old_dir, new_dir] : pairs) {
        auto old_read = read_runs(old_dir, o.old_run);
        if (!old_read)
            return old_read.err();
        auto new_read = read_runs(new_dir, o.new_run);
        if (!new_read)
            return new_read.err();
        // The suite as its files name it: two single folders pair whatever their names ("runs/a", "runs/b").
        const auto& name = new_read->name.empty() ? folder : new_read->name;
        const auto& old_runs = old_read->runs;
        const auto& new_runs = new_read->runs;
        for (const auto& [sc, arms] : new_runs)
            for (const auto& [arm, nr] : arms) {
                auto os = old_runs.find(sc);
                if (os == old_runs.end() || !os->second.count(arm)) {
                    c.only_one_side.push_back(name + "/" + sc + "/" + arm + ": only in NEW");
                    continue;
                }
                const auto& orun = os->second.at(arm);
                if (orun.scale != nr.scale && !o.allow_scale_mismatch)
                    return fail(name + "/" + sc + "/" + arm + ": load scale differs (OLD " +
                                significant(orun.scale, 4) + ", NEW " + significant(nr.scale, 4) +
                                "); pass --allow-scale-mismatch to compare anyway");
                auto a = compare_arm(orun, nr, o.threshold_percent);
                a.suite = name;
                a.scenario = sc;
                a.arm = arm;
                c.rows.push_back(std::move(a));
            }
        for (const auto& [sc, arms] : old_runs)
            for (const auto& [arm, r] : arms) {
                auto ns = new_runs.find(sc);
                if (ns == new_runs.end() || !ns->second.count(arm))
                    c.only_one_side.push_back(name + "/" + sc + "/" + arm + ": only in OLD");
            }
    }
    // The same folder twice, or a copy of it: every ratio is 1 by construction, which says nothing about noise.
    std::error_code ec;
    bool same_folder = std::filesystem::equivalent(o.old_dir, o.new_dir, ec) && o.old_run == o.new_run;
    bool same_runs = !c.rows.empty() && std::all_of(c.rows.begin(), c.rows.end(), [](const arm_comparison& a) {
        return a.old_run_id == a.new_run_id;
    });
    if (same_folder)
        c.warnings.push_back("OLD and NEW are the same folder (" + o.old_dir.string() +
                             "): the same runs compared with themselves; every ratio is 1 by construction");
    else if (same_runs)
        c.warnings.push_back("OLD and NEW hold the same runs (the same run ids): a copy compared with itself; every "
                             "ratio is 1 by construction");
    if (c.rows.empty())
        return fail("nothing in common: no scenario × arm has a run in both " + c.old_label + " and " + c.new_label);
    if (c.count(change::improved) + c.count(change::regressed) + c.count(change::unchanged) +
            c.count(change::inconclusive) ==
        0)
        return fail("nothing comparable: every scenario × arm in common has fewer than " +
                    std::to_string(min_verdict_trials) + " usable trials on one side");
    return c;
}

}  // namespace execbench::report
