#pragma once
// The workload map as figures (issue 42): each cell's capacities against what theory predicts, and who leads.
// suite_page/map_section.hpp says it.

#include "execbench/report/judge/capacity_figures.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace execbench::report {

/// Measured and predicted capacities "agree" within this share; beyond it the page says why they part.
inline constexpr double map_agreement = 0.10;

/// Which bound predicts a capacity: none (nothing bounds it in theory), the cores (cores / C) or the workers
/// (workers / (C + W), Little's law).
enum class map_bound { none, cores, workers };

/// What theory says one arm can serve in one cell of the workload map, against what it served.
struct map_arm {
    std::string arm;
    const load::capacity_record* search = nullptr;
    /// min(cores / C, workers / (C + W)); 0 when no bound applies (no CPU asked and no worker limit).
    double predicted_rps = 0;
    map_bound predicted_by = map_bound::none;
    double cpu_micros_per_request = 0;  ///< server CPU per successful request at its highest clean step; 0 unknown
    double ratio = 0;                   ///< measured / predicted; 0 when either is unknown
    /// Measured and predicted are both known and within map_agreement of each other.
    [[nodiscard]] bool agrees() const;
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

/// min(cores / C, workers / (C + W)) in req/s for C µs of CPU and W ms of wait, and which bound it is ({0, none} when
/// neither applies; `workers` 0: no worker bound).
std::pair<double, map_bound> predict_capacity(double cpu_micros, double wait_millis, unsigned cores, unsigned workers);

}  // namespace execbench::report
