#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstdint>
#include <string_view>

namespace execbench::load {

/// Descriptors kept free beyond the sockets: results files, epoll, timers, /proc reads.
inline constexpr std::uint64_t spare_descriptors = 64;

/// Makes sure `connections` sockets (plus spare_descriptors) fit under RLIMIT_NOFILE: raises the soft limit up to
/// the hard limit when needed (core/machine.hpp holds the limits themselves). Returns the soft limit now in force,
/// or an error naming the limit and the remedy.
result<std::uint64_t> ensure_open_files(std::uint64_t connections);

/// Open files a scenario needs at its peak: in the load generator (sockets plus spare), in the server under
/// test (client connections plus the sockets of its calls downstream, counted from `delayCallDepth`) and in a
/// separate downstream server (0 when there is none).
struct descriptor_needs {
    std::uint64_t load_generator = 0;
    std::uint64_t server = 0;
    std::uint64_t downstream = 0;
};
descriptor_needs descriptors_needed(const scenario& s);

/// The deepest `delayCallDepth` in a scenario's request mix (foreground and background).
unsigned max_call_depth(const scenario& s);
/// The largest value of query parameter `parameter` (e.g. "delayInMillis") in a scenario's request paths, foreground
/// and background; 0 when none has it.
unsigned max_query_number(const scenario& s, std::string_view parameter);

}  // namespace execbench::load
