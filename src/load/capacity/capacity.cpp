#include "execbench/load/capacity/capacity.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/stats/bootstrap.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace execbench::load {

namespace {

/// The walk over the rate axis: each probe runs one step, records it, and says whether it met the SLO; nullopt
/// when the search must stop (the outcome is set then).
class searcher {
public:
    searcher(const capacity_options& o, const capacity_step_function& step, capacity_result& out)
        : o_(o), step_(step), out_(out)
    {
    }

    std::optional<bool> probe(double rate, const std::string& phase)
    {
        auto s = run(rate, phase);
        if (s && s->generator_bound)
            // Once more: on a shared machine a burst of other work can delay the generator for one step.
            s = run(rate, phase);
        if (!s)
            return std::nullopt;
        if (s->generator_bound) {
            // The generator, not the server, limited this step twice: nothing above the last clean pass is known.
            out_.what = capacity_result::outcome::generator_bound;
            return std::nullopt;
        }
        if (s->met_slo)
            highest_pass_ = std::max(highest_pass_, rate);
        return s->met_slo;
    }

    /// Runs and records one step; nullopt (outcome stopped) when it could not run.
    std::optional<capacity_step> run(double rate, const std::string& phase)
    {
        auto s = step_(rate, phase);
        if (!s) {
            out_.what = capacity_result::outcome::stopped;
            out_.stop_reason = s.err().message;
            return std::nullopt;
        }
        s->index = static_cast<unsigned>(out_.steps.size() + 1);
        s->phase = phase;
        s->offered_rps = rate;
        out_.steps.push_back(*s);
        return *s;
    }

    /// Widens [lo, hi] by `factor` steps until lo passes and hi fails; false when the search must stop.
    bool bracket(double& lo, double& hi, double factor, const std::string& phase, bool check_lo, bool check_hi)
    {
        bool lo_failed = false;
        if (check_lo)
            for (;;) {
                auto p = probe(lo, phase);
                if (!p)
                    return false;
                if (*p)
                    break;
                hi = lo;  // a failed low end is the new high end: no need to check that one again
                lo_failed = true;
                if (lo <= o_.min_rps) {
                    out_.what = capacity_result::outcome::below_min;
                    return false;
                }
                lo = std::max(lo / factor, o_.min_rps);
            }
        if (check_hi && !lo_failed)
            for (;;) {
                auto p = probe(hi, phase);
                if (!p)
                    return false;
                if (!*p)
                    break;
                lo = hi;
                if (hi >= o_.max_rps) {
                    out_.what = capacity_result::outcome::above_max;
                    return false;
                }
                hi = std::min(hi * factor, o_.max_rps);
            }
        return true;
    }

    /// Bisects [lo, hi] (lo passed, hi failed) at geometric midpoints to the resolution; the last rate that passed.
    std::optional<double> bisect(double lo, double hi, const std::string& phase)
    {
        while (hi / lo > 1 + o_.resolution) {
            auto mid = std::sqrt(lo * hi);
            auto p = probe(mid, phase);
            if (!p)
                return std::nullopt;
            (*p ? lo : hi) = mid;
        }
        last_hi_ = hi;
        return lo;
    }

    [[nodiscard]] double highest_pass() const noexcept { return highest_pass_; }
    [[nodiscard]] double last_hi() const noexcept { return last_hi_; }

private:
    const capacity_options& o_;
    const capacity_step_function& step_;
    capacity_result& out_;
    double highest_pass_ = 0;
    double last_hi_ = 0;
};

}  // namespace

result<void> validate(const capacity_options& o)
{
    if (!(o.min_rps > 0) || !(o.start_rps > 0) || !(o.max_rps > 0))
        return fail("capacity: the start, minimum and maximum rates must be positive");
    if (o.min_rps > o.start_rps || o.start_rps > o.max_rps)
        return fail("capacity: expected minimum rate <= start rate <= maximum rate");
    if (!(o.growth > 1))
        return fail("capacity: the bracket's growth factor must be above 1, e.g. 2");
    if (!(o.resolution > 0) || !(o.resolution < o.growth - 1))
        return fail("capacity: the resolution must be above 0 and below the growth factor minus 1, e.g. 0.05");
    if (o.trials < 1)
        return fail("capacity: at least one trial");
    return {};
}

void capacity_interval(capacity_result& r, double resolution)
{
    auto m = stats::median_with_interval(r.estimates);
    r.capacity_rps = m.median;
    r.low_rps = m.low;
    // Each estimate is the last rate that passed; its own boundary lies up to one resolution step above it.
    r.high_rps = m.high * (1 + resolution);
}

capacity_result search_capacity(const capacity_options& o, const capacity_step_function& step)
{
    capacity_result out;
    searcher s(o, step, out);
    auto finish_bound = [&] {
        out.capacity_rps = s.highest_pass();
        out.low_rps = out.high_rps = 0;
        return out;
    };

    auto start = std::clamp(o.start_rps, o.min_rps, o.max_rps);
    double lo = start, hi = start;
    auto first = s.probe(start, "bracket");
    if (!first)
        return finish_bound();
    if (*first) {
        if (start >= o.max_rps) {
            out.what = capacity_result::outcome::above_max;
            return finish_bound();
        }
        hi = std::min(start * o.growth, o.max_rps);
        if (!s.bracket(lo, hi, o.growth, "bracket", false, true))
            return finish_bound();
    } else {
        if (start <= o.min_rps) {
            out.what = capacity_result::outcome::below_min;
            return finish_bound();
        }
        lo = std::max(start / o.growth, o.min_rps);
        if (!s.bracket(lo, hi, o.growth, "bracket", true, false))
            return finish_bound();
    }

    auto estimate = s.bisect(lo, hi, "bisect 1");
    if (!estimate)
        return finish_bound();
    out.estimates.push_back(*estimate);
    // The later bisections start from a bracket two resolution steps wider on each side of the first one's final
    // interval, with both ends checked again: a lucky or unlucky first bracket does not decide them.
    auto widen = (1 + o.resolution) * (1 + o.resolution);
    auto first_lo = *estimate, first_hi = s.last_hi();
    for (unsigned t = 2; t <= o.trials; ++t) {
        auto phase = "bisect " + std::to_string(t);
        double l = std::max(first_lo / widen, o.min_rps), h = std::min(first_hi * widen, o.max_rps);
        if (!s.bracket(l, h, widen, phase, true, true))
            return finish_bound();
        auto e = s.bisect(l, h, phase);
        if (!e)
            return finish_bound();
        out.estimates.push_back(*e);
    }
    out.what = capacity_result::outcome::measured;
    capacity_interval(out, o.resolution);
    return out;
}

capacity_step step_from_run(const run_record& r, const std::vector<slo_gate>& gates)
{
    capacity_step s;
    s.offered_rps = r.scenario_used.load.rate;
    s.connections = r.scenario_used.load.connections;
    if (r.trials.empty())
        return s;
    const auto& t = r.trials.front();
    auto value = [&](std::string_view name) {
        for (const auto& m : r.summary)
            if (m.name == name)
                return m.spread.median;
        return 0.0;
    };
    // Per second of the step's issuing time: the responses that arrive while it drains were sent within it, and
    // the drain (up to one latency) would otherwise read as a lower rate.
    auto length = std::chrono::duration<double>(r.scenario_used.load.length).count();
    s.achieved_rps = length > 0 ? double(t.measured.foreground.count.ok) / length : value(metric::requests_per_second);
    s.p50_millis = value(metric::latency_millis_p50);
    s.p90_millis = value(metric::latency_millis_p90);
    s.p99_millis = value(metric::latency_millis_p99);
    s.errors = t.measured.foreground.count.error_total();
    s.unsent = t.measured.foreground.count.unsent;
    if (t.server) {
        s.server_cpu_percent = t.server->cpu_percent_avg;
        s.server_rss_mb = t.server->resident_mb_max;
    }
    s.generator_bound = t.generator_bound;
    auto verdicts = check_slo(gates, r);
    s.met_slo = !slo_broken(verdicts);
    if (s.generator_bound)
        s.note = "generator-bound: " + t.generator_bound_reason;
    else
        for (const auto& v : verdicts)
            if (!v.passed)
                s.note += (s.note.empty() ? "" : "; ") + describe(v);
    return s;
}

std::string describe(const capacity_plan& plan)
{
    char growth[32];
    std::snprintf(growth, sizeof growth, "%g", plan.search.growth);
    return "capacity search: open-loop steps of " + format_duration(plan.step_length) + " after a " +
           format_duration(plan.step_warmup) + " warm-up each from " + rate_text(plan.search.start_rps) + " req/s, x" +
           growth + " up to " + rate_text(plan.search.max_rps) + " req/s, " + std::to_string(plan.search.trials) +
           " bisection(s) to " + fixed(plan.search.resolution * 100, 0) + " %, SLO " + plan.slo + "; " +
           plan.connections.describe();
}

std::string capacity_connections::describe() const
{
    if (fixed)
        return "fixed " + grouped(*fixed) + " connections";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", per_rps);
    return std::string("connections follow the rate (") + buf + " per req/s)";
}

std::uint32_t capacity_connections::at(double rate) const noexcept
{
    if (fixed)
        return *fixed;
    return static_cast<std::uint32_t>(std::clamp(std::ceil(rate * per_rps), 1.0, 1'000'000.0));
}

result<capacity_plan> make_capacity_plan(const capacity_spec& spec)
{
    capacity_plan plan;
    plan.slo = spec.slo.value_or(std::string(default_capacity_slo));
    auto gates = parse_slo(plan.slo);
    if (!gates)
        return fail("capacity.slo: " + gates.err().message);
    plan.gates = std::move(*gates);
    plan.connections.fixed = spec.connections;
    if (spec.connections && *spec.connections == 0)
        return fail("capacity: connections must be at least 1");
    if (spec.connections_per_rps) {
        if (!(*spec.connections_per_rps > 0))
            return fail("capacity: connections per req/s must be positive, e.g. 1");
        plan.connections.per_rps = *spec.connections_per_rps;
    }
    auto& o = plan.search;
    o.start_rps = spec.start_rate.value_or(o.start_rps);
    o.max_rps = spec.max_rate.value_or(o.max_rps);
    o.min_rps = std::min(o.min_rps, o.start_rps);
    if (spec.resolution_percent)
        o.resolution = *spec.resolution_percent / 100;
    o.trials = spec.trials.value_or(o.trials);
    if (auto v = validate(o); !v)
        return v.err();
    auto length = [](const std::optional<std::string>& text, duration& into, std::string_view what) -> result<void> {
        if (!text)
            return {};
        auto d = parse_duration(*text);
        if (!d)
            return fail("capacity: " + std::string(what) + ": " + d.err().message);
        into = *d;
        return {};
    };
    if (auto v = length(spec.step_duration, plan.step_length, "step duration"); !v)
        return v.err();
    if (auto v = length(spec.step_warmup, plan.step_warmup, "step warm-up"); !v)
        return v.err();
    if (plan.step_length.count() <= 0)
        return fail("capacity: the step duration must be above zero, e.g. 3s");
    return plan;
}

scenario step_scenario(const scenario& s, const capacity_plan& plan, double rate)
{
    scenario out = s;
    out.load.kind = shape::open;
    out.load.rate = rate;
    out.load.connections = plan.connections.at(rate);
    out.load.length = plan.step_length;
    out.load.stages.clear();
    out.warmup = plan.step_warmup;
    out.pause = plan.step_pause;
    out.trials = 1;
    return out;
}

capacity_result run_capacity(const scenario& s, const run_options& options, const run_target& target,
                             const capacity_plan& plan,
                             const std::function<void(const capacity_step&, const run_record&)>& on_step,
                             const capacity_step_wrapper& wrap)
{
    unsigned index = 0;
    auto one = [&](double rate, const std::string& phase) -> result<capacity_step> {
        if (options.stop && options.stop->load())
            return fail("stopped");
        auto r = run(step_scenario(s, plan, rate), options, target);
        if (!r)
            return r.err();
        if (r->partial || r->trials.empty())
            return fail("stopped during the step at " + rate_text(rate) + " req/s");
        auto st = step_from_run(*r, plan.gates);
        st.index = ++index;  // as search_capacity numbers it: one per call
        st.phase = phase;
        st.offered_rps = rate;
        if (on_step)
            on_step(st, *r);
        return st;
    };
    auto step = [&](double rate, const std::string& phase) -> result<capacity_step> {
        if (!wrap)
            return one(rate, phase);
        return wrap([&] { return one(rate, phase); });
    };
    auto found = search_capacity(plan.search, step);
    // Requests a connection carries at once: its HTTP/1.1 pipeline, or its HTTP/2 streams.
    found.pipeline = std::max<std::uint32_t>(1, s.protocol == http_protocol::h2 ? s.streams : s.load.pipeline);
    return found;
}

std::string format_step_line(const capacity_step& s)
{
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "step %u (%s): offered %s req/s on %u connections, achieved %s req/s, p50=%.1fms p90=%.1fms "
                  "p99=%.1fms errors=%llu unsent=%llu server cpu=%.0f%% rss=%.0fMB: ",
                  s.index, s.phase.c_str(), rate_text(s.offered_rps).c_str(), s.connections,
                  rate_text(s.achieved_rps).c_str(), s.p50_millis, s.p90_millis, s.p99_millis,
                  static_cast<unsigned long long>(s.errors), static_cast<unsigned long long>(s.unsent),
                  s.server_cpu_percent, s.server_rss_mb);
    std::string verdict = s.generator_bound ? "GENERATOR-BOUND" : s.met_slo ? "met the SLO" : "missed the SLO";
    return buf + verdict + (s.note.empty() ? "" : " (" + s.note + ")");
}

std::string format_step_json(const capacity_step& s)
{
    nlohmann::ordered_json j;
    j["type"] = "capacity_step";
    j["step"] = s.index;
    j["phase"] = s.phase;
    j["offered_rps"] = s.offered_rps;
    j["achieved_rps"] = s.achieved_rps;
    j["connections"] = s.connections;
    j[std::string(metric::latency_millis_p50)] = s.p50_millis;
    j[std::string(metric::latency_millis_p90)] = s.p90_millis;
    j[std::string(metric::latency_millis_p99)] = s.p99_millis;
    j[std::string(metric::requests_error)] = s.errors;
    j[std::string(metric::requests_unsent)] = s.unsent;
    j[std::string(metric::server_cpu_percent_avg)] = s.server_cpu_percent;
    j[std::string(metric::server_rss_mb_max)] = s.server_rss_mb;
    j["met_slo"] = s.met_slo;
    j["generator_bound"] = s.generator_bound;
    j["note"] = s.note;
    return j.dump();
}

std::string format_capacity_json(const capacity_result& r, std::string_view slo, std::string_view connections)
{
    nlohmann::ordered_json j;
    j["type"] = "capacity";
    j["outcome"] = to_string(r.what);
    j["capacity_rps"] = r.capacity_rps;
    j["capacity_rps_low"] = r.what == capacity_result::outcome::measured ? nlohmann::ordered_json(r.low_rps) : nullptr;
    j["capacity_rps_high"] =
        r.what == capacity_result::outcome::measured ? nlohmann::ordered_json(r.high_rps) : nullptr;
    j["lower_bound"] = r.lower_bound();
    j["slo"] = slo;
    j["connections"] = connections;
    j["estimates"] = r.estimates;
    j["steps"] = r.steps.size();
    if (r.what == capacity_result::outcome::stopped)
        j["stop_reason"] = r.stop_reason;
    return j.dump();
}

}  // namespace execbench::load
