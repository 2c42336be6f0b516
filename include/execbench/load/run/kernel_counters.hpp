#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/tcp_counters.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {


/// Reads the three files; fails naming the file that could not be read.
result<kernel_counters> read_kernel_counters();



/// The values of the paired header/value lines of /proc/net/netstat and /proc/net/snmp ("TcpExt: A B\nTcpExt: 1 2"),
/// keyed "TcpExt.A"; of /proc/net/sockstat's "TCP: inuse 1 tw 2" lines, keyed "TCP.tw". Lines that do not parse are
/// skipped.
std::map<std::string, std::uint64_t> parse_proc_net(std::string_view text);

/// The local port range, /proc/sys/net/ipv4/ip_local_port_range: how many ports connect() may pick from.
result<std::uint32_t> local_port_count();

/// A warning when `connections` to one address and port, with `time_wait` sockets still holding ports, do not fit
/// in `ports` local ports per source address over `sources` addresses; "" when they fit.
std::string port_range_warning(std::uint64_t connections, std::uint32_t ports, std::uint64_t time_wait,
                               std::uint32_t sources);

}  // namespace execbench::load
