#include "execbench/report/workload_map.hpp"

#include "execbench/core/text.hpp"
#include "execbench/report/capacity_report.hpp"
#include "execbench/report/charts.hpp"
#include "execbench/report/words.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace execbench::report {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
// Measured and predicted "agree" within this; beyond it the page says why they part (issue 42).
constexpr double agreement = 0.10;

/// The value of `key` in a request's query string, or nothing.
std::optional<double> query_number(std::string_view path, std::string_view key)
{
    auto q = path.find('?');
    if (q == std::string_view::npos)
        return std::nullopt;
    auto query = path.substr(q + 1);
    while (!query.empty()) {
        auto amp = query.find('&');
        auto pair = query.substr(0, amp);
        if (auto eq = pair.find('='); eq != std::string_view::npos && pair.substr(0, eq) == key) {
            try {
                return std::stod(std::string(pair.substr(eq + 1)));
            } catch (...) {
                return std::nullopt;
            }
        }
        if (amp == std::string_view::npos)
            break;
        query.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

/// The cell a request names: `/cpu?cpuMicros=C&delayInMillis=W`, or `/io?delayInMillis=W` (C = 0; /io waits 300 ms
/// by default); nothing for any other request.
std::optional<std::pair<double, double>> cell_of(std::string_view path)
{
    auto route = path.substr(0, path.find('?'));
    if (route == "/io")
        return std::pair{0.0, query_number(path, "delayInMillis").value_or(300)};
    if (route == "/cpu" || route == "/cpu-offloaded")
        if (auto c = query_number(path, "cpuMicros"))
            return std::pair{*c, query_number(path, "delayInMillis").value_or(0)};
    return std::nullopt;
}

/// The number of CPUs in a taskset list ("0", "0-3", "0,2").
unsigned cpus_in(const std::string& list)
{
    unsigned n = 0;
    std::istringstream in(list);
    std::string part;
    while (std::getline(in, part, ',')) {
        auto dash = part.find('-');
        try {
            n += dash == std::string::npos
                     ? 1u
                     : unsigned(std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1);
        } catch (...) {
        }
    }
    return n;
}

std::string rate_figure(double v)
{
    return grouped(static_cast<std::uint64_t>(std::llround(std::max(0.0, v))));
}

/// "2.0k", "≥ 32k": a capacity short enough for a map cell.
std::string short_rps(const load::capacity_result& r)
{
    using outcome = load::capacity_result::outcome;
    auto v = r.capacity_rps;
    std::string n = v >= 10'000 ? fixed(v / 1000, 0) + "k" : v >= 1000 ? fixed(v / 1000, 1) + "k" : fixed(v, 0);
    switch (r.what) {
    case outcome::measured: return n;
    case outcome::generator_bound:
    case outcome::above_max: return "≥ " + n;
    case outcome::below_min: return "< " + rate_figure(r.steps.empty() ? 0 : r.steps.back().offered_rps);
    case outcome::stopped: break;
    }
    return "–";
}

/// Where an arm's capacity lies: [low, high]; a lower bound reaches to infinity.
std::pair<double, double> interval_of(const load::capacity_result& r)
{
    using outcome = load::capacity_result::outcome;
    switch (r.what) {
    case outcome::measured: return {r.low_rps, r.high_rps};
    case outcome::generator_bound:
    case outcome::above_max: return {r.capacity_rps, infinity};
    case outcome::below_min: return {0, r.steps.empty() ? 0 : r.steps.back().offered_rps};
    case outcome::stopped: break;
    }
    return {0, infinity};  // unknown: beats nothing, beaten by nothing
}

/// Steps a figure can stand on: they met the SLO and the generator kept up.
bool passed_cleanly(const load::capacity_step& st)
{
    return st.met_slo && !st.generator_bound && st.achieved_rps > 0;
}

/// Server CPU µs per successful request at the highest clean step; 0 when there is none.
double cpu_per_request(const load::capacity_result& r)
{
    const load::capacity_step* best = nullptr;
    for (const auto& st : r.steps)
        if (passed_cleanly(st) && (!best || st.offered_rps > best->offered_rps))
            best = &st;
    return best ? best->server_cpu_percent / 100.0 / best->achieved_rps * 1e6 : 0;
}

/// The first step above the capacity that missed the SLO, for what the server did there.
const load::capacity_step* first_miss_above(const load::capacity_result& r)
{
    const load::capacity_step* out = nullptr;
    for (const auto& st : r.steps)
        if (!st.met_slo && !st.generator_bound && st.offered_rps > r.capacity_rps &&
            (!out || st.offered_rps < out->offered_rps))
            out = &st;
    return out;
}

/// min(cores / C, workers / (C + W)) in req/s, and which bound it is; {0, ""} when neither applies.
std::pair<double, std::string> predict(double c_us, double w_ms, unsigned cores, unsigned workers)
{
    double cpu = c_us > 0 ? cores * 1e6 / c_us : infinity;
    double little = workers > 0 && (c_us > 0 || w_ms > 0) ? workers / (c_us / 1e6 + w_ms / 1e3) : infinity;
    if (std::isinf(cpu) && std::isinf(little))
        return {0, ""};
    if (little < cpu)
        return {little, grouped(workers) + " workers / (C + W)"};
    return {cpu, (cores == 1 ? std::string("one core") : grouped(cores) + " cores") + " / C"};
}

/// Why an arm's measured capacity parts from the prediction, from its own steps.
std::string explain(const map_cell& c, const map_arm& a, unsigned cores, unsigned workers, bool pool)
{
    using outcome = load::capacity_result::outcome;
    const auto& r = a.search->result;
    if (r.what == outcome::generator_bound)
        return "the generator's bound: its core, not the server, stopped the search at ≥ " +
               rate_figure(r.capacity_rps) + " req/s (a lower bound)";
    if (r.what == outcome::above_max)
        return "the search's highest rate, " + rate_figure(r.capacity_rps) + " req/s: a lower bound, not the server's";
    if (r.what == outcome::below_min)
        return "no rate met the SLO";
    if (r.what == outcome::stopped)
        return "not measured (" + r.stop_reason + ")";
    std::string out;
    if (a.cpu_micros_per_request > 0) {
        double own = std::max(0.0, a.cpu_micros_per_request - c.cpu_micros);
        auto [with_own, by] = predict(c.cpu_micros + own, c.wait_millis, cores, pool ? workers : 0);
        out = (pool ? "the pool's own cost per request (its thread switches and queue hand-offs included): "
                    : "its own cost per request: ") +
              fixed(a.cpu_micros_per_request, a.cpu_micros_per_request < 10 ? 1 : 0) +
              " µs of server CPU per request at its highest passing step, " + fixed(own, own < 10 ? 1 : 0) +
              " µs over the C asked; with it the bound is " + rate_figure(with_own) + " req/s";
        if (with_own > 0 && std::abs(r.capacity_rps / with_own - 1) <= agreement)
            return out;
        out += "; ";
    }
    if (const auto* miss = first_miss_above(r))
        out +=
            "at " + rate_figure(miss->offered_rps) + " req/s the SLO broke (" + miss->note + ") with the server at " +
            fixed(miss->server_cpu_percent, 0) + " % CPU" +
            (miss->server_cpu_percent < 90.0 * cores ? ": queueing before the core was full" : ": the core was full");
    return out;
}

}  // namespace

const map_cell* workload_map::at(double cpu, double wait) const
{
    for (const auto& c : cells)
        if (c.cpu_micros == cpu && c.wait_millis == wait)
            return &c;
    return nullptr;
}

double pool_break_even_wait_millis(double cpu_micros, unsigned workers, unsigned cores)
{
    if (cores == 0)
        return 0;
    return cpu_micros / 1e3 * (double(workers) / cores - 1);
}

namespace {

/// What one search's context says: the cell its one request names (into `where`), and the server's CPUs and pool
/// threads.
void read_context(const load::run_context& ctx, std::pair<double, double>& where, workload_map& m)
{
    if (const auto& mix = ctx.scenario_used.mix; mix.size() == 1)
        if (auto cell = cell_of(mix[0].path))
            where = *cell;
    // Older or hand-written lines may lack a field: absent reads as unknown.
    auto health = ctx.server.health_fields();
    if (auto cpus = cpus_in(health["cpus"]); cpus > 0)
        m.cores = cpus;
    if (auto threads = load::number_of(health["threads"]); health["model"] == "pool" && threads >= 1)
        m.pool_workers = unsigned(threads);
}

/// Each arm's prediction, ratio and reason in a cell, and the arms no other beats.
void judge(map_cell& c, const suite_data& s, const workload_map& m)
{
    const auto& searches = s.capacity.at(c.scenario);
    for (const auto& arm : s.models) {
        auto it = searches.find(arm);
        if (it == searches.end())
            continue;
        map_arm a;
        a.arm = arm;
        a.search = &it->second;
        bool pool = it->second.model == "pool";
        std::tie(a.predicted_rps, a.predicted_by) =
            predict(c.cpu_micros, c.wait_millis, m.cores, pool ? m.pool_workers : 0);
        a.cpu_micros_per_request = cpu_per_request(a.search->result);
        if (a.predicted_rps > 0 && a.search->result.capacity_rps > 0)
            a.ratio = a.search->result.capacity_rps / a.predicted_rps;
        if (a.ratio == 0 || std::abs(a.ratio - 1) > agreement)
            a.why = explain(c, a, m.cores, m.pool_workers, pool);
        c.arms.push_back(std::move(a));
    }
    for (const auto& a : c.arms) {
        auto mine = interval_of(a.search->result);
        bool beaten = std::any_of(c.arms.begin(), c.arms.end(),
                                  [&](const map_arm& b) { return interval_of(b.search->result).first > mine.second; });
        if (!beaten)
            c.leaders.push_back(a.arm);
    }
    c.undecided = c.leaders.size() == c.arms.size() && std::any_of(c.arms.begin(), c.arms.end(), [](const map_arm& a) {
                      return std::isinf(interval_of(a.search->result).second);
                  });
}

}  // namespace

std::optional<workload_map> read_workload_map(const suite_data& s)
{
    std::map<std::string, const load::run_context*> by_id;
    for (const auto& c : s.contexts)
        by_id[c.run_id] = &c;
    workload_map m;
    for (const auto& sc : s.capacity_scenarios) {
        auto found = s.capacity.find(sc);
        if (found == s.capacity.end())
            continue;
        // A cell's CPU and wait are never negative: (-1, -1) until a context names one.
        std::pair<double, double> where{-1, -1};
        for (const auto& [arm, rec] : found->second)
            if (auto j = by_id.find(rec.run_id); j != by_id.end())
                read_context(*j->second, where, m);
        if (where.first < 0)
            continue;
        map_cell cell;
        cell.scenario = sc;
        std::tie(cell.cpu_micros, cell.wait_millis) = where;
        m.cells.push_back(std::move(cell));
        if (std::find(m.cpus.begin(), m.cpus.end(), where.first) == m.cpus.end())
            m.cpus.push_back(where.first);
        if (std::find(m.waits.begin(), m.waits.end(), where.second) == m.waits.end())
            m.waits.push_back(where.second);
    }
    if (m.cpus.size() < 2 || m.waits.size() < 2)
        return std::nullopt;
    std::sort(m.cpus.begin(), m.cpus.end());
    std::sort(m.waits.begin(), m.waits.end());
    std::sort(m.cells.begin(), m.cells.end(), [](const map_cell& a, const map_cell& b) {
        return std::pair{a.cpu_micros, a.wait_millis} < std::pair{b.cpu_micros, b.wait_millis};
    });
    for (auto& c : m.cells)
        judge(c, s, m);
    return m;
}

nlohmann::json map_chart_data(const suite_data& s, const workload_map& m)
{
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& c : m.cells) {
        nlohmann::json arms = nlohmann::json::array();
        for (const auto& a : c.arms)
            arms.push_back({{"arm", a.arm}, {"label", short_rps(a.search->result)}, {"ratio", a.ratio}});
        cells.push_back({{"cpu", c.cpu_micros},
                         {"wait", c.wait_millis},
                         {"leaders", c.leaders},
                         {"tie", c.leaders.size() == c.arms.size() && !c.undecided},
                         {"undecided", c.undecided},
                         {"arms", arms}});
    }
    nlohmann::json boundary = nlohmann::json::array();
    if (m.pool_workers > 0)
        for (auto cpu : m.cpus)  // at C = 0 the break-even wait is 0: the pool keeps up with no wait at all
            boundary.push_back({{"cpu", cpu}, {"wait", pool_break_even_wait_millis(cpu, m.pool_workers, m.cores)}});
    return {{"kind", "map"},
            {"title", "Workload map (" + s.name +
                          "): which arm serves the most requests per second within each cell's "
                          "SLO"},
            {"all_arms", s.models},
            {"cpus", m.cpus},
            {"waits", m.waits},
            {"cells", cells},
            {"boundary", boundary},
            {"workers", m.pool_workers},
            {"cores", m.cores}};
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
        if (a.search->model == "pool")
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
        if (c.cpu_micros == 0 || !p || p->ratio == 0 || p->ratio >= 1 - agreement)
            continue;
        for (const auto& a : c.arms)
            if (a.cpu_micros_per_request > c.cpu_micros)
                widen(a.cpu_micros_per_request - c.cpu_micros, a.search->model == "pool" ? pool_lo : rest_lo,
                      a.search->model == "pool" ? pool_hi : rest_hi);
    }
    if (pool_hi == 0 || rest_hi == 0)
        return {};
    auto range = [](double lo, double hi) { return fixed(lo, 0) + (fixed(lo, 0) == fixed(hi, 0) ? "" : "–" + fixed(hi, 0)) + " µs"; };
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
        << ", theory has the pool keep up while a request waits less than " << fixed(double(m.pool_workers) / m.cores - 1, 0)
        << " × its CPU time (" << grouped(m.pool_workers) << " / (C + W) ≥ " << m.cores << " / C";
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
                    gap_bound = std::isinf(interval_of(a.search->result).second);
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
                        (it->predicted_rps > 0 ? rate_figure(it->predicted_rps) +
                                                     (it->ratio > 0 ? " (" + fixed(it->ratio, 2) + ")" : "")
                                               : "–");
            r.emplace_back(std::move(text), it->search->result.capacity_rps);
        }
        r.emplace_back(leaders_text(c));
        measured.rows.push_back(std::move(r));
    }
    p.add(std::move(measured));

    p.add(paragraph{"**Where measured and predicted part by more than " + fixed(agreement * 100, 0) +
                    " %**, or nothing predicts, and why (from each search's own steps):"});
    bullets why;
    for (const auto& c : m->cells)
        for (const auto& a : c.arms)
            if (!a.why.empty())
                why.items.push_back(cpu_text(c.cpu_micros) + ", " + wait_text(c.wait_millis) + ", " + a.arm +
                                    (a.ratio > 0 ? " (" + fixed(a.ratio, 2) + ")" : "") + ": " + a.why);
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
