#include "execbench/load/record/machine_record.hpp"

#include <cmath>

namespace execbench::load {

std::string machine_identity(const machine_context& m)
{
    // The clock tells apart hosts that share a model name (a VM's 2.1 and 2.6 GHz EPYCs); rounded to the MHz, since
    // /proc/cpuinfo prints 2599.998 on one boot and 2600.000 on the next. Where a cpufreq governor scales the clock,
    // the MHz is the moment's, not the machine's, and is left out.
    auto cpu = m.cpu_model.empty() ? std::string("unknown CPU") : m.cpu_model;
    if (m.cpu_mhz > 0 && m.cpu_governor.empty())
        cpu += " at " + std::to_string(std::llround(m.cpu_mhz)) + " MHz";
    return cpu + ", " + (m.kernel.empty() ? std::string("unknown kernel") : m.kernel);
}

}  // namespace execbench::load
