#include "execbench/load/scenario/scale.hpp"

#include "execbench/core/machine.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/scenario/open_files.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace execbench::load {

namespace {

std::string rate_text(double rate)
{
    if (rate >= 10)
        return grouped(static_cast<std::uint64_t>(std::llround(rate)));
    return significant(rate, 3);
}

std::string figures(const load_spec& l)
{
    switch (l.kind) {
    case shape::ramp: return grouped(l.users) + " peak users";
    case shape::closed: return grouped(l.connections) + " connections";
    case shape::open:
        return (l.rate_from ? describe(*l.rate_from) : rate_text(l.rate) + " req/s") + " on " +
               grouped(l.connections) + " connections";
    case shape::burst:
        return grouped(l.requests) + " requests" +
               (l.connections && l.connections != l.requests ? " on " + grouped(l.connections) + " connections" : "");
    }
    return {};
}

void scale_load(load_spec& l, double factor)
{
    // A rate is a real number: no rounding needed.
    resize_load(l, {[factor](std::uint64_t n) { return scale_count(n, factor); },
                    [factor](double rate) { return rate * factor; }});
}

duration times(duration d, double factor)
{
    return duration{static_cast<duration::rep>(std::llround(double(d.count()) * factor))};
}

void compress_load(load_spec& l, double factor)
{
    l.length = times(l.length, factor);
    if (l.profile == ramp_profile::stages)
        for (auto& st : l.stages)
            st.length = times(st.length, factor);
    prepare_ramp(l);
}

void compress_mix(std::vector<request_spec>& mix, double factor)
{
    for (auto& r : mix) {
        r.from = times(r.from, factor);
        if (r.until)
            r.until = times(*r.until, factor);
    }
}

}  // namespace

result<scenario> compress_scenario(scenario s, double factor)
{
    if (!(factor > 0 && factor <= 1))
        return fail("--time-scale: expected a factor greater than 0 and at most 1, got " + format_scale(factor));
    if (factor == 1)
        return s;
    if (s.time_scale.unscaled.empty())
        s.time_scale.unscaled = format_duration(s.load.length);
    compress_load(s.load, factor);
    compress_mix(s.mix, factor);
    if (s.background) {
        compress_load(s.background->load, factor);
        compress_mix(s.background->mix, factor);
        s.background->delay = times(s.background->delay, factor);
    }
    s.time_scale.factor *= factor;
    return s;
}

std::string time_note(const scenario& s)
{
    if (s.time_scale.factor == 1)
        return {};
    return "run in " + format_scale(s.time_scale.factor) + " of its time: " + format_duration(s.load.length) +
           " instead of " + s.time_scale.unscaled + " (chosen with --time-scale)";
}

std::string time_meaning(double factor)
{
    return "the same users, rates and think times over " + format_scale(factor) +
           " of the length, so ramps are steeper and a steady state is sampled for less time: its verdicts are the "
           "compressed load's (docs/methodology.md#compressed-runs)";
}

std::uint64_t scale_count(std::uint64_t n, double factor) noexcept
{
    if (n == 0)
        return 0;
    auto v = std::llround(double(n) * factor);
    return v < 1 ? 1 : static_cast<std::uint64_t>(v);
}

std::string format_scale(double factor)
{
    return significant(factor, 4);
}

result<scenario> scale_scenario(scenario s, double factor, std::string decided_by)
{
    if (!(factor > 0 && factor <= 1))
        return fail("--scale: expected a factor greater than 0 and at most 1, got " + format_scale(factor));
    if (factor == 1)
        return s;
    if (s.scale.unscaled.empty())
        s.scale.unscaled = load_figures(s);
    scale_load(s.load, factor);
    if (s.background)
        scale_load(s.background->load, factor);
    s.scale.factor *= factor;
    s.scale.decided_by = std::move(decided_by);
    return s;
}

std::string load_figures(const scenario& s)
{
    auto out = figures(s.load);
    if (s.background)
        out += "; background " + figures(s.background->load);
    return out;
}

std::string scale_note(const scenario& s)
{
    if (s.scale.factor == 1)
        return {};
    auto now = load_figures(s);
    auto was = s.scale.unscaled;
    // One figure with the same unit reads best as "19,400 peak users instead of 20,000".
    auto unit = [](const std::string& t) { return t.substr(std::min(t.find(' '), t.size())); };
    auto one_figure = [](const std::string& t) {
        return std::count_if(t.begin(), t.end(), [](char c) { return c == ' '; }) <= 2 &&
               t.find_first_of("0123456789", t.find(' ')) == std::string::npos;
    };
    if (one_figure(now) && unit(now) == unit(was))
        was = was.substr(0, was.find(' '));
    std::string note = "run at " + format_scale(s.scale.factor) + " scale: " + now + " instead of " + was;
    if (!s.scale.reason.empty())
        note += " (" + s.scale.reason + ")";
    else if (s.scale.decided_by == "--scale")
        note += " (chosen with --scale)";
    return note;
}

std::string scale_meaning(double factor)
{
    if (factor >= representative_scale)
        return "within " + format_scale(100 * (1 - representative_scale)) +
               " % of the scenario's load, so it stands for the scenario for practical purposes";
    return "a smaller load than the scenario's, so it is not the scenario: its figures describe this smaller load "
           "only, and say nothing about where the models part at the full load";
}

open_file_limits current_open_file_limits()
{
    auto ceiling = open_file_ceiling();
    return {ceiling, ceiling, ceiling};
}

namespace {

struct process_need {
    const char* name;   ///< as recorded in decided_by
    const char* label;  ///< as written in messages
    std::uint64_t need;
    std::uint64_t limit;
};

std::array<process_need, 3> needs_of(const scenario& s, const open_file_limits& limits)
{
    auto n = descriptors_needed(s);
    return {{{"generator", "the load generator", n.load_generator, limits.generator},
             {"server", "the server", n.server, limits.server},
             {"downstream", "the downstream server", n.downstream, limits.downstream}}};
}

std::uint64_t usable(std::uint64_t limit)
{
    auto kept = static_cast<std::uint64_t>(std::ceil(double(limit) * fit_margin));
    return limit > kept ? limit - kept : 0;
}

std::uint64_t largest_need(const scenario& s)
{
    auto n = descriptors_needed(s);
    return std::max({n.load_generator, n.server, n.downstream});
}

}  // namespace

result<fit_result> largest_fitting_scale(const scenario& s, const open_file_limits& limits)
{
    auto full = needs_of(s, limits);
    if (std::all_of(full.begin(), full.end(), [](const auto& p) { return p.need <= p.limit; }))
        return fit_result{};
    // The tightest process decides: the one whose need is largest against what it may use.
    const auto* tightest = &full[0];
    for (const auto& p : full)
        if (double(p.need) / double(std::max<std::uint64_t>(usable(p.limit), 1)) >
            double(tightest->need) / double(std::max<std::uint64_t>(usable(tightest->limit), 1)))
            tightest = &p;
    fit_result out;
    out.decided_by = tightest->name;
    out.reason = "decided by " + std::string(tightest->label) + "'s open-file limit: it needs about " +
                 grouped(tightest->need) + " at full scale and may open " + grouped(tightest->limit) + ", " +
                 format_scale(100 * fit_margin) + " % of it kept free";
    auto steps = static_cast<int>(std::lround(1 / fit_step));
    // Rounding makes needs step unevenly with the factor, so each candidate is checked as it would run.
    for (int k = steps - 1; k >= 1; --k) {
        double factor = double(k) / steps;
        auto scaled = scale_scenario(s, factor, out.decided_by);
        if (!scaled)
            continue;
        auto at = needs_of(*scaled, limits);
        if (std::all_of(at.begin(), at.end(), [](const auto& p) { return p.need <= usable(p.limit); })) {
            out.factor = factor;
            return out;
        }
    }
    return fail(std::string(tightest->label) + " would need about " + grouped(tightest->need) +
                " open files at full scale and may open " + grouped(tightest->limit) + "; even at " +
                format_scale(fit_step) + " scale it would not fit");
}

result<scenario> fit_open_files(const scenario& s, bool fit)
{
    auto limits = current_open_file_limits();
    auto fitting = largest_fitting_scale(s, limits);
    if (fitting && fitting->decided_by.empty()) {
        raise_open_file_limit(largest_need(s));
        return s;
    }
    if (!fit) {
        // Not run: the message names the first process that does not fit, and how it could run here.
        std::string why;
        if (auto gen = ensure_open_files(connections_needed(s)); !gen) {
            why = "not run: the load generator " + gen.err().message;
        } else {
            for (const auto& p : needs_of(s, limits)) {
                if (p.need <= p.limit)
                    continue;
                auto depth = max_call_depth(s);
                why =
                    "not run: " + std::string(p.label) + " would need about " + std::to_string(p.need) +
                    " open files (" + std::to_string(connections_needed(s)) + " client connections" +
                    (depth > 0 ? " plus the sockets of " + std::to_string(depth) + " call level(s) per request" : "") +
                    ") but the open-file limit (RLIMIT_NOFILE) is " + std::to_string(p.limit) +
                    " and cannot be raised here";
                break;
            }
        }
        if (fitting)
            why += "; `--fit-to-limits` would run it here at " + format_scale(s.scale.factor * fitting->factor) +
                   " scale, labelled as such (" + fitting->reason + ")";
        return fail(why);
    }
    if (!fitting)
        return fail("not run, not even scaled: " + fitting.err().message);
    auto scaled = scale_scenario(s, fitting->factor, fitting->decided_by);
    if (!scaled)
        return scaled.err();
    scaled->scale.reason = fitting->reason;
    raise_open_file_limit(largest_need(*scaled));
    return scaled;
}

}  // namespace execbench::load
