#include "execbench/load/record/machine_record.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("machine_identity names the CPU, its clock to the MHz and the kernel", "[record][machine]")
{
    machine_context m;
    m.cpu_model = "Intel(R) Xeon(R) Processor";
    m.cpu_mhz = 2599.998;
    m.kernel = "Linux 6.18.44-fc-v1300";
    CHECK(machine_identity(m) == "Intel(R) Xeon(R) Processor at 2600 MHz, Linux 6.18.44-fc-v1300");

    SECTION("two boots of one host print the clock a little apart and are one machine")
    {
        auto again = m;
        again.cpu_mhz = 2600.0;
        CHECK(machine_identity(again) == machine_identity(m));
    }
    SECTION("another clock, CPU or kernel is another machine")
    {
        auto slower = m, amd = m, kernel = m;
        slower.cpu_mhz = 2096.0;
        amd.cpu_model = "AMD EPYC";
        kernel.kernel = "Linux 6.18.44-fc-v1272";
        CHECK(machine_identity(slower) != machine_identity(m));
        CHECK(machine_identity(amd) != machine_identity(m));
        CHECK(machine_identity(kernel) != machine_identity(m));
    }
    SECTION("where a governor scales the clock, the moment's MHz is no part of the machine")
    {
        m.cpu_governor = "powersave";
        CHECK(machine_identity(m) == "Intel(R) Xeon(R) Processor, Linux 6.18.44-fc-v1300");
    }
    SECTION("what /proc did not say is named unknown, not left blank")
    {
        CHECK(machine_identity(machine_context{}) == "unknown CPU, unknown kernel");
    }
}
