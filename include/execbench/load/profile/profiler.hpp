#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/profile/perf_output.hpp"
#include "execbench/load/run/runner.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// How a profiled trial watches the server.
struct profile_options {
    std::string perf = "perf";  ///< Debian's linux-perf, looked up on the PATH
    unsigned frequency = 499;   ///< perf record's samples per second and CPU
    /// How long perf may take to attach to the server's threads and to answer a command.
    std::chrono::milliseconds control_timeout{20'000};
};


/// Why perf cannot profile on this machine ("perf is not installed ..."), or nothing when `perf --version` runs.
/// Whether it may watch another process shows only when it tries (perf_event_paranoid, capabilities).
std::optional<std::string> perf_unavailable(const profile_options& p = {});

/// Runs `s` once more as one trial (after its warm-up) with the server under `perf record` (call graphs by DWARF
/// unwinding: our Release code and Debian's libc keep no frame pointers) and `perf stat` (CPU time, context switches,
/// system calls by name), both enabled over exactly the trial through perf's control FIFOs. Fails when the
/// server's pid is unknown, when neither perf could watch it (quoting perf), or when the run fails; a perf that
/// could not is named in `notes`.
result<profile_capture> run_profiled(const scenario& s, const run_options& options, const profile_options& p = {});

/// "fiber io-600 profiled (under perf, not a result): 1877 req/s (0.98 x the unprofiled median 1915), CPU 52.1
/// us/request, 1.02 context switches/request, 6.1 system calls/request (sendmsg 1.00, recvmsg 2.00, ...)"; without
/// a capture, "... profiled: no profile". `unprofiled_rps` 0 leaves the comparison out.
std::string format_profile_line(std::string_view scenario, std::string_view arm, const profile_capture* c,
                                double unprofiled_rps);

}  // namespace execbench::load
