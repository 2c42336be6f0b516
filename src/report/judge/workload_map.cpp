#include "execbench/report/judge/workload_map.hpp"

#include "execbench/core/cpus.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/report/judge/capacity_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace execbench::report {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

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

/// The number of CPUs in a taskset list ("0", "0-3", "0,2"); 0 when it is not one.
unsigned cpus_in(const std::string& list)
{
    auto cpus = parse_cpu_list(list);
    return cpus ? unsigned(cpus->size()) : 0;
}

/// Server CPU µs per successful request at the highest clean step; 0 when there is none.
double cpu_per_request(const load::capacity_result& r)
{
    const load::capacity_step* best = nullptr;
    for (const auto& st : r.steps)
        if (passed_cleanly(st) && (!best || st.offered_rps > best->offered_rps))
            best = &st;
    return best ? cpu_micros_per_request(*best) : 0;
}

}  // namespace

bool map_arm::agrees() const
{
    return ratio > 0 && std::abs(ratio - 1) <= map_agreement;
}

std::pair<double, map_bound> predict_capacity(double c_us, double w_ms, unsigned cores, unsigned workers)
{
    double cpu = c_us > 0 ? cores * 1e6 / c_us : infinity;
    double little = workers > 0 && (c_us > 0 || w_ms > 0) ? workers / (c_us / 1e6 + w_ms / 1e3) : infinity;
    if (std::isinf(cpu) && std::isinf(little))
        return {0, map_bound::none};
    if (little < cpu)
        return {little, map_bound::workers};
    return {cpu, map_bound::cores};
}

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
    // A /health without a field (another server's, or a context line of an earlier schema, whose fields keep
    // their defaults): absent reads as unknown.
    auto health = ctx.server.health_fields();
    if (auto cpus = cpus_in(health["cpus"]); cpus > 0)
        m.cores = cpus;
    if (auto threads = load::number_of(health["threads"]); wait_holds_thread(health["model"]) && threads >= 1)
        m.pool_workers = unsigned(threads);
}

/// Each arm's prediction and ratio in a cell, and the arms no other beats.
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
        // A model whose waits hold its threads is bounded by them too, not by the cores alone.
        const bool bounded_by_threads = wait_holds_thread(it->second.model);
        std::tie(a.predicted_rps, a.predicted_by) =
            predict_capacity(c.cpu_micros, c.wait_millis, m.cores, bounded_by_threads ? m.pool_workers : 0);
        a.cpu_micros_per_request = cpu_per_request(a.search->result);
        if (a.predicted_rps > 0 && a.search->result.capacity_rps > 0)
            a.ratio = a.search->result.capacity_rps / a.predicted_rps;
        c.arms.push_back(std::move(a));
    }
    for (const auto& a : c.arms) {
        auto mine = capacity_interval(a.search->result);
        bool beaten = std::any_of(c.arms.begin(), c.arms.end(), [&](const map_arm& b) {
            return capacity_interval(b.search->result).first > mine.second;
        });
        if (!beaten)
            c.leaders.push_back(a.arm);
    }
    c.undecided = c.leaders.size() == c.arms.size() && std::any_of(c.arms.begin(), c.arms.end(), [](const map_arm& a) {
                      return std::isinf(capacity_interval(a.search->result).second);
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

}  // namespace execbench::report
