#pragma once

#include "execbench/load/results/ledger.hpp"
#include "execbench/load/record/run_record.hpp"
#include "execbench/report/page/page.hpp"

#include <string>

namespace execbench::report {

/// bench-suite's closing table, filled run by run as the suite goes: the arms of a scenario together, each with
/// its status and medians across trials (ok, errors, unsent, wall time, req/s, p50, p99, RSS, CPU, threads).
class run_table {
public:
    run_table();

    /// One ledger line and the run it made (null, or with no summary: the run did not produce figures).
    void add(const load::suite_entry& entry, const load::run_record* result);

    /// True before the first line.
    [[nodiscard]] bool empty() const noexcept { return table_.rows.empty(); }

    /// The table, and a note when some run had no latency to show.
    [[nodiscard]] page to_page() const;

private:
    table table_;
    std::string last_scenario_;
    bool no_latency_ = false;
};

}  // namespace execbench::report
