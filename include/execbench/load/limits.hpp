#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>

namespace execbench::load {

/// Descriptors kept free beyond the sockets: results files, epoll, timers, /proc reads.
inline constexpr std::uint64_t spare_descriptors = 64;

/// Raises the soft RLIMIT_NOFILE towards the hard limit when it is below `descriptors`; returns the soft limit now
/// in force (UINT64_MAX when unlimited). Children started afterwards inherit it.
std::uint64_t raise_open_files(std::uint64_t descriptors) noexcept;

/// Makes sure `connections` sockets (plus spare_descriptors) fit under RLIMIT_NOFILE: raises the soft limit up to
/// the hard limit when needed. Returns the soft limit now in force, or an error naming the limit and the remedy.
result<std::uint64_t> ensure_open_files(std::uint64_t connections);

}  // namespace execbench::load
