#pragma once

#include "execbench/report/page/page.hpp"
#include "execbench/report/paths.hpp"
#include "execbench/report/suite_reader.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace execbench::report {

/// What theory says one arm can serve in one cell of the workload map, and why its measured capacity differs.
struct map_arm {
    std::string arm;
    const load::capacity_record* search = nullptr;
    /// min(cores / C, workers / (C + W)); 0 when no bound applies (no CPU asked and no worker limit).
    double predicted_rps = 0;
    std::string predicted_by;           ///< "one core / C", "200 workers / (C + W)", or "" when unbounded
    double cpu_micros_per_request = 0;  ///< server CPU per successful request at its highest clean step; 0 unknown
    double ratio = 0;                   ///< measured / predicted; 0 when either is unknown
    std::string why;                    ///< where they part by more than 10 %, the evidence; "" when they agree
};

/// One cell: a request that waits `wait_millis`, then computes `cpu_micros` (issue 42).
struct map_cell {
    std::string scenario;
    double cpu_micros = 0;
    double wait_millis = 0;
    std::vector<map_arm> arms;         ///< in the suite's arm order
    std::vector<std::string> leaders;  ///< the arms no other arm beats by disjoint intervals; all arms: a tie
    /// No arm beaten, and some figure only a lower bound (the generator or the search's ceiling stopped it): not a
    /// tie, since the bound hides where that arm stops.
    bool undecided = false;
};

/// The grid of a suite whose capacity searches ask for CPU × wait (`/cpu?cpuMicros=C&delayInMillis=W`, or
/// `/io?delayInMillis=W` for C = 0) at two CPU values and two waits at least.
struct workload_map {
    std::vector<double> cpus;     ///< µs, ascending
    std::vector<double> waits;    ///< ms, ascending
    std::vector<map_cell> cells;  ///< row by CPU, then by wait
    unsigned cores = 1;           ///< the server's CPUs, from the runs' contexts
    unsigned pool_workers = 0;    ///< the pool arm's threads (0: no pool arm)
    [[nodiscard]] const map_cell* at(double cpu, double wait) const;
};

/// The map of `s`, or nothing when its capacity searches hold no grid.
std::optional<workload_map> read_workload_map(const suite_data& s);

/// The wait below which a pool of `workers` on `cores` keeps up with the event models: W = C · (workers / cores − 1),
/// where its bound workers / (C + W) meets the CPU's cores / C.
double pool_break_even_wait_millis(double cpu_micros, unsigned workers, unsigned cores);

/// The chart file of the map, relative to the suite's chart folder.
inline constexpr const char* map_chart_name = "workload-map.svg";

/// The data the chart script draws the map from ("map"): the grid, each cell's leaders and per-arm figures, and the
/// predicted boundary between the pool and the others.
nlohmann::json map_chart_data(const suite_data& s, const workload_map& m);

/// The suite page's map section (the picture, measured / predicted per cell and arm, the reasons they part); nothing
/// when the suite holds no map.
page map_section(const suite_data& s, const report_paths& paths);

/// The README's and index's lines on the map of `s`: the picture and the one sentence it answers; nothing without a
/// map.
page map_headline(const suite_data& s, const report_paths& paths);

}  // namespace execbench::report
