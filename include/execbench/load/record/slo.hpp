#pragma once

#include "execbench/core/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

struct run_record;

/// One service-level gate of `--slo`, e.g. "p99<300ms" (docs/results-format.md has the grammar).
struct slo_gate {
    enum class op { less, less_equal, greater, greater_equal, equal };
    std::string text;    ///< as written, trimmed
    std::string metric;  ///< the summary column it reads, e.g. "latency_millis_p99"
    op compare = op::less;
    double limit = 0;  ///< in the column's unit (milliseconds for latency and wall time)
};

/// Parses "p99<300ms,p50<120ms,errors=0,unsent=0,rps>=1800"; the error names the gate and what was expected.
result<std::vector<slo_gate>> parse_slo(std::string_view text);

/// How a run fared against one gate.
struct slo_verdict {
    std::string gate;  ///< the gate as written
    std::string metric;
    double measured = 0;     ///< the median over trials; the worst trial for error and unsent counts
    bool measurable = true;  ///< false for a latency gate when no request succeeded
    bool passed = false;
};

/// Checks every gate against a run's trials.
std::vector<slo_verdict> check_slo(const std::vector<slo_gate>& gates, const run_record& r);
/// True when any verdict failed.
bool slo_broken(const std::vector<slo_verdict>& verdicts) noexcept;
/// "p99<300ms: measured 412ms (median)" for a broken gate, "no successful requests" when it could not be measured.
std::string describe(const slo_verdict& v);

}  // namespace execbench::load
