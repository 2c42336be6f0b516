#include "execbench/load/run/machine_context.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/machine.hpp"

#include <fstream>
#include <thread>

#include <sys/utsname.h>

namespace execbench::load {

machine_context collect_context()
{
    machine_context c;
    c.execbench_version = std::string(version());
    c.git_revision = std::string(git_revision());
    c.source_digest = std::string(source_digest());
    c.build_type = std::string(build_type());
    c.compiler = std::string(compiler());
    c.cpu_count = std::thread::hardware_concurrency();
    c.boost_version = boost_version();
    c.cpu_governor = cpu_governor();
    c.cpu_mhz = cpu_mhz();
    c.memory_mb = memory_mb();
    c.rlimit_nofile = open_file_limit();
    c.somaxconn = somaxconn();
    c.port_range = local_port_range();
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos)
                c.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
            break;
        }
    }
    utsname u{};
    if (uname(&u) == 0) {
        c.kernel = std::string(u.sysname) + " " + u.release;
        c.hostname = u.nodename;
    }
    return c;
}

}  // namespace execbench::load
