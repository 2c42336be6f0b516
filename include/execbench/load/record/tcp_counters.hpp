#pragma once

#include "execbench/stats/downstream_metrics.hpp"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// The kernel's TCP connection counters of this network namespace, as /proc/net/netstat, /proc/net/snmp and
/// /proc/net/sockstat give them: both ends of a loopback run (the generator's connects and the server's accepts)
/// count here, and so does anything else in the namespace.
struct kernel_counters {
    std::uint64_t listen_overflows = 0;  ///< TcpExt ListenOverflows: SYNs or ACKs dropped on a full accept queue
    std::uint64_t listen_drops = 0;      ///< TcpExt ListenDrops: every drop at a listener, overflows included
    std::uint64_t syn_retransmits = 0;   ///< TcpExt TCPSynRetrans: SYNs sent again (after 1 s, 3 s, ...)
    std::uint64_t timeouts = 0;          ///< TcpExt TCPTimeouts: retransmission timer expiries
    std::uint64_t active_opens = 0;      ///< Tcp ActiveOpens: connect() calls that sent a SYN
    std::uint64_t passive_opens = 0;     ///< Tcp PassiveOpens: connections a listener accepted
    std::uint64_t resets_sent = 0;       ///< Tcp OutRsts: segments sent with RST
    std::uint64_t aborts = 0;            ///< the TcpExt TCPAbortOn* and TCPAbortFailed counters, summed
    std::uint64_t time_wait = 0;         ///< sockstat tw: sockets in TIME_WAIT now (a level, not a counter)
};

/// The counters' growth from `before` to `after` (0 where a counter went back), with `after`'s TIME_WAIT level.
kernel_counters kernel_difference(const kernel_counters& before, const kernel_counters& after);
/// The counters as result columns (load/metrics/metrics.hpp spells them), in CSV order.
std::vector<std::pair<std::string_view, double>> kernel_columns(const kernel_counters& k);

/// What the server's downstream client did over a trial as result columns, in CSV order (all 0 when not reported).
std::vector<std::pair<std::string_view, double>> downstream_columns(const stats::downstream_reading& d);

}  // namespace execbench::load
