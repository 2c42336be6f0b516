#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/kernel_counters.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("parse_proc_net reads the paired tables of netstat and snmp and the pairs of sockstat", "[load]")
{
    auto v = parse_proc_net("TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans\n"
                            "TcpExt: 0 7 9 12\n"
                            "IpExt: InNoRoutes\n"
                            "IpExt: 3\n"
                            "Tcp: RtoAlgorithm ActiveOpens PassiveOpens MaxConn OutRsts\n"
                            "Tcp: 1 6083 6065 -1 10\n"
                            "sockets: used 13\n"
                            "TCP: inuse 1 orphan 0 tw 42 alloc 1 mem 260\n"
                            "UDP: inuse 0 mem 0\n"
                            "Broken: 1 2\n");
    CHECK(v["TcpExt.ListenOverflows"] == 7);
    CHECK(v["TcpExt.ListenDrops"] == 9);
    CHECK(v["TcpExt.TCPSynRetrans"] == 12);
    CHECK(v["IpExt.InNoRoutes"] == 3);
    CHECK(v["Tcp.ActiveOpens"] == 6083);
    CHECK(v["Tcp.PassiveOpens"] == 6065);
    CHECK(v["Tcp.OutRsts"] == 10);
    // -1 is not a count: left out rather than read as a huge number.
    CHECK(v.count("Tcp.MaxConn") == 0);
    CHECK(v["TCP.tw"] == 42);
    CHECK(v["TCP.inuse"] == 1);
    CHECK(v["sockets.used"] == 13);
    CHECK(v.count("Broken.1") == 0);
}

TEST_CASE("kernel counters are read from this machine and differ by their growth", "[load]")
{
    auto before = read_kernel_counters();
    REQUIRE(before.ok());
    kernel_counters after = *before;
    after.active_opens += 5;
    after.resets_sent += 2;
    after.time_wait = 3;
    after.listen_drops = 0;  // a counter that went back (a namespace's reset) reads as no growth
    auto d = kernel_difference(*before, after);
    CHECK(d.active_opens == 5);
    CHECK(d.resets_sent == 2);
    CHECK(d.listen_drops == 0);
    CHECK(d.passive_opens == 0);
    CHECK(d.time_wait == 3);
    auto columns = kernel_columns(d);
    REQUIRE(columns.size() == 9);
    CHECK(columns.front().first == "kernel_listen_overflows");
}

TEST_CASE("the port range warning counts TIME_WAIT and the source addresses", "[load]")
{
    CHECK(port_range_warning(20'000, 28'232, 0, 1).empty());
    auto full = port_range_warning(20'000, 28'232, 9'000, 1);
    CHECK_THAT(full, Catch::Contains("20000 connections and 9000 sockets still in TIME_WAIT"));
    CHECK_THAT(full, Catch::Contains("ip_local_port_range"));
    CHECK(port_range_warning(20'000, 28'232, 9'000, loopback_source_addresses).empty());
    CHECK_FALSE(port_range_warning(30'000'000, 28'232, 0, loopback_source_addresses).empty());
    auto ports = local_port_count();
    REQUIRE(ports.ok());
    CHECK(*ports > 0);
}
