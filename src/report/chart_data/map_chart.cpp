#include "execbench/report/chart_data/map_chart.hpp"

#include "execbench/report/word/capacity_text.hpp"

namespace execbench::report {

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

}  // namespace execbench::report
