#include "execbench/core/machine.hpp"

#include <boost/version.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>

namespace execbench {

namespace {

/// RLIMIT_NOFILE's soft limit as a count (UINT64_MAX when unlimited).
std::uint64_t soft_limit(const rlimit& lim) noexcept
{
    return lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(lim.rlim_cur);
}

std::string first_line(const char* file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

/// The value after "key:" in a /proc file of "key: value" lines.
std::string field_of(const char* file, const std::string& key)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            auto colon = line.find(':');
            if (colon == std::string::npos)
                continue;
            auto start = line.find_first_not_of(" \t", colon + 1);
            return start == std::string::npos ? std::string{} : line.substr(start);
        }
    return {};
}

}  // namespace

std::optional<cpu_times> read_cpu_times()
{
    std::istringstream in(first_line("/proc/stat"));
    std::string label;
    in >> label;
    if (label != "cpu")
        return std::nullopt;
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    cpu_times t;
    for (int i = 0; i < 8; ++i) {
        std::uint64_t v = 0;
        if (!(in >> v))
            return i >= 4 ? std::optional<cpu_times>(t) : std::nullopt;
        t.total += v;
        if (i == 7)
            t.steal = v;
    }
    return t;
}

double steal_percent(const cpu_times& before, const cpu_times& after)
{
    if (after.total <= before.total || after.steal < before.steal)
        return 0;
    return 100.0 * double(after.steal - before.steal) / double(after.total - before.total);
}

std::optional<double> load_average()
{
    std::istringstream in(first_line("/proc/loadavg"));
    double v = 0;
    if (in >> v)
        return v;
    return std::nullopt;
}

std::string cpu_governor()
{
    return first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
}

double cpu_mhz()
{
    auto text = field_of("/proc/cpuinfo", "cpu MHz");
    return text.empty() ? 0.0 : std::strtod(text.c_str(), nullptr);
}

std::uint64_t memory_mb()
{
    auto text = field_of("/proc/meminfo", "MemTotal");
    return text.empty() ? 0 : std::strtoull(text.c_str(), nullptr, 10) / 1024;  // the file says kB
}

std::uint64_t open_file_limit()
{
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    return soft_limit(lim);
}

std::uint64_t open_file_ceiling()
{
    rlimit lim{};
    std::uint64_t ceiling = UINT64_MAX;
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_max != RLIM_INFINITY)
        ceiling = lim.rlim_max;
    auto nr_open = std::strtoull(first_line("/proc/sys/fs/nr_open").c_str(), nullptr, 10);
    return nr_open > 0 ? std::min<std::uint64_t>(ceiling, nr_open) : ceiling;
}

std::uint64_t raise_open_file_limit(std::uint64_t descriptors) noexcept
{
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < descriptors && lim.rlim_cur < lim.rlim_max) {
        rlimit raised = lim;
        raised.rlim_cur = lim.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0)
            lim = raised;
    }
    return soft_limit(lim);
}

std::uint64_t somaxconn()
{
    auto text = first_line("/proc/sys/net/core/somaxconn");
    return text.empty() ? 0 : std::strtoull(text.c_str(), nullptr, 10);
}

std::string local_port_range()
{
    std::istringstream in(first_line("/proc/sys/net/ipv4/ip_local_port_range"));
    unsigned lo = 0, hi = 0;
    if (in >> lo >> hi)
        return std::to_string(lo) + "-" + std::to_string(hi);
    return {};
}

std::string boost_version()
{
    std::string v = BOOST_LIB_VERSION;  // "1_81"
    for (auto& c : v)
        if (c == '_')
            c = '.';
    return v;
}

}  // namespace execbench
