#include "execbench/report/suite_page/map_section.hpp"

#include "execbench/core/model_names.hpp"
#include "execbench/core/text.hpp"
#include "execbench/report/chart_data/chart_hash.hpp"
#include "execbench/report/chart_data/map_chart.hpp"
#include "execbench/report/word/capacity_text.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace execbench::report {

namespace {

/// Why an arm's measured capacity parts from the prediction, from its own steps.
std::string explain(const map_cell& c, const map_arm& a, unsigned cores, unsigned workers)
{
    const bool pool = wait_holds_thread(a.search->model);
    using outcome = load::capacity_result::outcome;
    const auto& r = a.search->result;
    if (r.what == outcome::generator_bound)
        return "the generator's bound: its core, not the server, stopped the search at ≥ " + load::rate_text(r.capacity_rps) +
               " req/s (a lower bound)";
    if (r.what == outcome::above_max)
        return "the search's highest rate, " + load::rate_text(r.capacity_rps) + " req/s: a lower bound, not the server's";
    if (r.what == outcome::below_min)
        return "no rate met the SLO";
    if (r.what == outcome::stopped)
        return "not measured (" + r.stop_reason + ")";
    std::string out;
    if (a.cpu_micros_per_request > 0) {
        double own = std::max(0.0, a.cpu_micros_per_request - c.cpu_micros);
        auto [with_own, by] = predict_capacity(c.cpu_micros + own, c.wait_millis, cores, pool ? workers : 0);
        out = (pool ? "the pool's own cost per request (its thread switches and queue hand-offs included): "
                    : "its own cost per request: ") +
              fixed(a.cpu_micros_per_request, a.cpu_micros_per_request < 10 ? 1 : 0) +
              " µs of server CPU per request at its highest passing step, " + fixed(own, own < 10 ? 1 : 0) +
              " µs over the C asked; with it the bound is " + load::rate_text(with_own) + " req/s";
        if (with_own > 0 && std::abs(r.capacity_rps / with_own - 1) <= map_agreement)
            return out;
        out += "; ";
    }
    if (const auto* miss = first_miss_above(r))
        out +=
            "at " + load::rate_text(miss->offered_rps) + " req/s the SLO broke (" + miss->note + ") with the server at " +
            fixed(miss->server_cpu_percent, 0) + " % CPU" +
            (miss->server_cpu_percent < 90.0 * cores ? ": queueing before the core was full" : ": the core was full");
    return out;
}

}  // namespace

std::string why_apart(const map_cell& c, const map_arm& a, const workload_map& m)
{
    return a.agrees() ? std::string() : explain(c, a, m.cores, m.pool_workers);
}

namespace {

std::string cpu_text(double us)
{
    return us >= 1000 ? fixed(us / 1000, std::fmod(us, 1000) == 0 ? 0 : 1) + " ms" : fixed(us, 0) + " µs";
}

std::string wait_text(double ms)
{
    return fixed(ms, ms < 1 && ms > 0 ? 1 : 0) + " ms";
}

std::string leaders_text(const map_cell& c)
{
    if (c.undecided)
        return "undecided (lower bounds)";
    if (c.leaders.size() == c.arms.size())
        return "tie";
    std::string out;
    for (const auto& l : c.leaders)
        out += (out.empty() ? "" : " = ") + l;
    return out;
}

/// The arm named `pool` by model, or nullptr.
const map_arm* pool_of(const map_cell& c)
{
    for (const auto& a : c.arms)
        if (wait_holds_thread(a.search->model))
            return &a;
    return nullptr;
}

/// Where the pool falls behind sooner than Little's law says, the reason in one sentence: its CPU per request over the
/// C asked, against the other arms'; "" when the measured rows agree with theory.
std::string own_cost_sentence(const workload_map& m, bool early)
{
    if (!early)
        return {};
    double pool_lo = 0, pool_hi = 0, rest_lo = 0, rest_hi = 0;
    auto widen = [](double v, double& lo, double& hi) {
        lo = lo == 0 ? v : std::min(lo, v);
        hi = std::max(hi, v);
    };
    // Only the cells where the pool parts from its prediction: elsewhere its own cost does not decide.
    for (const auto& c : m.cells) {
        const auto* p = pool_of(c);
        if (c.cpu_micros == 0 || !p || p->ratio == 0 || p->ratio >= 1 - map_agreement)
            continue;
        for (const auto& a : c.arms)
            if (a.cpu_micros_per_request > c.cpu_micros)
                widen(a.cpu_micros_per_request - c.cpu_micros, wait_holds_thread(a.search->model) ? pool_lo : rest_lo,
                      wait_holds_thread(a.search->model) ? pool_hi : rest_hi);
    }
    if (pool_hi == 0 || rest_hi == 0)
        return {};
    auto range = [](double lo, double hi) {
        return fixed(lo, 0) + (fixed(lo, 0) == fixed(hi, 0) ? "" : "–" + fixed(hi, 0)) + " µs";
    };
    return " The pool falls behind before its workers run out: each request costs it " + range(pool_lo, pool_hi) +
           " of CPU over the C asked (its thread switches and hand-offs), the others " + range(rest_lo, rest_hi) +
           ", so its core fills first, or its threads queue for the core before it is full (each cell's reason is "
           "listed where measured and predicted part).";
}

/// One sentence per CPU row on where the pool keeps up, read off the measured leaders.
std::string answer(const workload_map& m)
{
    if (m.pool_workers == 0)
        return {};
    std::ostringstream out;
    out << "With " << grouped(m.pool_workers) << " workers on " << m.cores << (m.cores == 1 ? " core" : " cores")
        << ", theory has the pool keep up while a request waits less than "
        << fixed(double(m.pool_workers) / m.cores - 1, 0) << " × its CPU time (" << grouped(m.pool_workers)
        << " / (C + W) ≥ " << m.cores << " / C";
    std::string examples;
    for (auto cpu : m.cpus)
        if (cpu > 0)
            examples += (examples.empty() ? ": " : ", ") +
                        wait_text(pool_break_even_wait_millis(cpu, m.pool_workers, m.cores)) + " at " + cpu_text(cpu);
    out << examples << "). Measured:";
    bool early = false;  // the pool is behind in some row at a wait theory says it keeps up at
    for (auto cpu : m.cpus) {
        double keeps = -1, behind = -1;
        bool led_alone = false, tied = false;
        double gap = 0;
        bool gap_bound = false;  // the figure ahead is a lower bound: the gap is at least this
        std::string ahead;
        for (auto wait : m.waits) {
            const auto* c = m.at(cpu, wait);
            const auto* p = c ? pool_of(*c) : nullptr;
            if (!p || c->undecided)
                continue;
            if (std::find(c->leaders.begin(), c->leaders.end(), p->arm) != c->leaders.end()) {
                keeps = wait;
                (c->leaders.size() == 1 ? led_alone : tied) = true;
                continue;
            }
            if (behind < 0)
                behind = wait;
            if (cpu > 0 && wait < pool_break_even_wait_millis(cpu, m.pool_workers, m.cores))
                early = true;
            // How far behind at the widest gap that is a measured figure on the pool's side.
            for (const auto& a : c->arms)
                if (a.search->result.capacity_rps > 0 && p->search->result.capacity_rps > 0 &&
                    a.search->result.capacity_rps / p->search->result.capacity_rps > gap) {
                    gap = a.search->result.capacity_rps / p->search->result.capacity_rps;
                    gap_bound = std::isinf(capacity_interval(a.search->result).second);
                    ahead = leaders_text(*c) + " at " + wait_text(wait);
                }
        }
        out << (cpu == m.cpus.front() ? " " : "; ") << "at " << cpu_text(cpu) << " of CPU the pool ";
        std::string keeps_verb = led_alone && tied ? "leads or ties" : led_alone ? "leads" : "ties";
        if (behind < 0)
            out << keeps_verb << " at every wait";
        else if (keeps < 0)
            out << (behind == m.waits.front() ? "is behind at every wait" : "is behind from " + wait_text(behind));
        else
            out << keeps_verb << (keeps == m.waits.front() ? " at " : " up to ") << wait_text(keeps)
                << " of wait and is behind from " << wait_text(behind);
        if (gap > 1)
            out << " (" << ahead << ": " << (gap_bound ? "at least " : "") << fixed(gap, gap < 10 ? 1 : 0)
                << "× its capacity)";
    }
    out << "." << own_cost_sentence(m, early);
    return out.str();
}

}  // namespace

page map_section(const suite_data& s, const report_paths& paths)
{
    page p;
    auto m = read_workload_map(s);
    if (!m)
        return p;
    p.add(heading{2, "Workload map"});
    p.add(paragraph{
        "Each cell is a request that waits W, then computes for C µs of the serving thread's CPU "
        "(`/cpu?cpuMicros=C&delayInMillis=W`), and each arm's capacity there: the highest open-loop rate within the "
        "cell's SLO, found by the capacity search below. A cell is coloured by the arm whose 95 % interval lies "
        "above every other's; arms whose intervals overlap at the top share the lead, and a cell where all overlap "
        "is a tie. The line is the predicted boundary between the pool and the rest (Little's law: a pool of N "
        "workers serves at most N / (C + W); one core at most 1 / C). Why the two bounds, and where they stop "
        "holding: [methodology](" +
        paths.methodology_link + "#the-workload-map-cpu-per-request-against-wait-per-request)."});
    p.add(
        chart_ref{"workload map", s.name + "/" + std::string(map_chart_name), fnv1a_hex(map_chart_data(s, *m).dump())});
    if (auto a = answer(*m); !a.empty())
        p.add(paragraph{a});

    p.add(paragraph{"**Who leads** (CPU per request down, wait per request across):"});
    table leads{{"CPU \\ wait"}, {}};
    for (auto w : m->waits)
        leads.header.push_back(wait_text(w));
    for (auto cpu : m->cpus) {
        std::vector<cell> r{{cpu_text(cpu), cpu}};
        for (auto w : m->waits) {
            const auto* c = m->at(cpu, w);
            r.emplace_back(c ? leaders_text(*c) : "–");
        }
        leads.rows.push_back(std::move(r));
    }
    p.add(std::move(leads));

    p.add(paragraph{"**Measured / predicted** (req/s; predicted = min(cores / C, workers / (C + W)) with the pool's " +
                    grouped(m->pool_workers) + " workers and " + std::to_string(m->cores) +
                    (m->cores == 1 ? " core" : " cores") +
                    "; an event arm has no worker bound, and with no CPU asked nothing bounds it in theory, so its "
                    "predicted figure is `–`):"});
    table measured{{"CPU", "wait", "SLO"}, {}};
    measured.header.insert(measured.header.end(), s.models.begin(), s.models.end());
    measured.header.emplace_back("leads");
    for (const auto& c : m->cells) {
        std::vector<cell> r{{cpu_text(c.cpu_micros), c.cpu_micros},
                            {wait_text(c.wait_millis), c.wait_millis},
                            c.arms.empty() ? "" : "`" + c.arms.front().search->slo + "`"};
        for (const auto& arm : s.models) {
            auto it = std::find_if(c.arms.begin(), c.arms.end(), [&](const map_arm& a) { return a.arm == arm; });
            if (it == c.arms.end()) {
                r.emplace_back("–");
                continue;
            }
            auto text = short_rps(it->search->result) + " / " +
                        (it->predicted_rps > 0
                             ? load::rate_text(it->predicted_rps) + (it->ratio > 0 ? " (" + fixed(it->ratio, 2) + ")" : "")
                             : "–");
            r.emplace_back(std::move(text), it->search->result.capacity_rps);
        }
        r.emplace_back(leaders_text(c));
        measured.rows.push_back(std::move(r));
    }
    p.add(std::move(measured));

    p.add(paragraph{"**Where measured and predicted part by more than " + fixed(map_agreement * 100, 0) +
                    " %**, or nothing predicts, and why (from each search's own steps):"});
    bullets why;
    for (const auto& c : m->cells)
        for (const auto& a : c.arms)
            if (auto reason = why_apart(c, a, *m); !reason.empty())
                why.items.push_back(cpu_text(c.cpu_micros) + ", " + wait_text(c.wait_millis) + ", " + a.arm +
                                    (a.ratio > 0 ? " (" + fixed(a.ratio, 2) + ")" : "") + ": " + reason);
    if (!why.items.empty())
        p.add(std::move(why));
    return p;
}

page map_headline(const suite_data& s, const report_paths& paths)
{
    page p;
    auto m = read_workload_map(s);
    if (!m)
        return p;
    p.add(chart_ref{"workload map: which model serves the most requests within the SLO, per CPU and wait per request",
                    paths.docs_link + "/" + s.name + "/" + std::string(map_chart_name), ""});
    p.add(paragraph{answer(*m) + " ([the map](" + paths.docs_link + "/" + s.name + ".md#workload-map))"});
    return p;
}

}  // namespace execbench::report
