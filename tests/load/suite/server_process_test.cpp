#include "execbench/load/suite/server_process.hpp"

#include <catch2/catch.hpp>

using execbench::load::announced_port;

TEST_CASE("the start line's port is read where bench-server announces it, and only there", "[load][suite]")
{
    CHECK(announced_port("bench-server model=loop threads=2 cpu_threads=2 address=127.0.0.1 port=41234 "
                         "downstream=http://127.0.0.1:41234 pid=7") == std::uint16_t{41234});
    CHECK_FALSE(announced_port("bench-server model=loop address=127.0.0.1 pid=7"));
    CHECK_FALSE(announced_port("bench-server model=loop port=0 pid=7"));
    CHECK_FALSE(announced_port("bench-server model=loop port=70000 pid=7"));
    CHECK_FALSE(announced_port("bench-server model=loop port=x pid=7"));
}
