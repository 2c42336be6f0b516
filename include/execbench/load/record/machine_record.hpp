#pragma once
// The machine and build a run came from, as data (collected by load/run's collect_context).

#include <cstdint>
#include <optional>
#include <string>

namespace execbench::load {

/// The machine and build a result came from.
struct machine_context {
    std::string execbench_version;
    std::string git_revision;
    std::string source_digest;  ///< of the sources the generator was built from (core/build_info.hpp); "" in older files
    std::string build_type;
    std::string compiler;
    std::string cpu_model;
    unsigned cpu_count = 0;
    std::string kernel;
    std::string hostname;
    std::string boost_version;
    std::string cpu_governor;  ///< "" where the machine has no cpufreq (most VMs)
    double cpu_mhz = 0;
    std::uint64_t memory_mb = 0;
    std::uint64_t rlimit_nofile = 0;
    std::uint64_t somaxconn = 0;
    std::string port_range;                ///< ip_local_port_range, "low-high"
    std::optional<double> loadavg_before;  ///< 1-minute load average when the run started
    std::optional<double> loadavg_after;   ///< and when it ended
    std::optional<double> steal_percent;   ///< hypervisor steal over the run (/proc/stat)
};

/// What makes two machines' figures incomparable, as one line: the CPU model, its clock to the MHz (where no governor
/// scales it) and the kernel ("Intel(R) Xeon(R) Processor at 2600 MHz, Linux 6.18.44"). A suite's folder and the
/// pieces it reuses must share it, since a suite's verdicts compare its arms with each other.
std::string machine_identity(const machine_context& m);

}  // namespace execbench::load
