#include "execbench/core/cpus.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace execbench {

namespace {

bool parse_number(std::string_view text, unsigned& out)
{
    if (text.empty())
        return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

// Beyond CPU_SETSIZE the fixed cpu_set_t cannot hold a CPU; no machine this runs on has that many.
constexpr unsigned max_cpu = CPU_SETSIZE - 1;

}  // namespace

result<cpu_list> parse_cpu_list(std::string_view text)
{
    auto bad = [&](const std::string& why) {
        return fail("CPU list '" + std::string(text) + "': " + why + " (expected e.g. 0, 0-3 or 0,2)");
    };
    if (text.empty())
        return bad("empty");
    cpu_list out;
    for (auto item : split_fields(text, ',')) {
        auto dash = item.find('-');
        unsigned lo = 0, hi = 0;
        if (dash == std::string_view::npos) {
            if (!parse_number(item, lo))
                return bad("'" + std::string(item) + "' is not a CPU number");
            hi = lo;
        } else if (!parse_number(item.substr(0, dash), lo) || !parse_number(item.substr(dash + 1), hi) || hi < lo) {
            return bad("'" + std::string(item) + "' is not a range low-high");
        }
        if (hi > max_cpu)
            return bad("CPU " + std::to_string(hi) + " is beyond " + std::to_string(max_cpu));
        for (unsigned c = lo; c <= hi; ++c)
            out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string format_cpu_list(const cpu_list& cpus)
{
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i)
            out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

cpu_list allowed_cpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    cpu_list out;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        for (unsigned c = 0; c <= max_cpu; ++c)
            if (CPU_ISSET(c, &set))
                out.push_back(c);
    }
    if (out.empty())
        for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c)
            out.push_back(c);
    return out;
}

std::string allowed_cpus_of(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    constexpr std::string_view key = "Cpus_allowed_list:";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            auto start = line.find_first_not_of(" \t", key.size());
            return start == std::string::npos ? std::string{} : line.substr(start);
        }
    return {};
}

std::optional<unsigned> cpus_of_quota(std::string_view cpu_max)
{
    // "QUOTA PERIOD", both in microseconds, or "max PERIOD" when the group has no quota.
    while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' '))
        cpu_max.remove_suffix(1);
    auto space = cpu_max.find(' ');
    if (space == std::string_view::npos)
        return std::nullopt;
    auto number = [](std::string_view text) -> std::optional<unsigned long long> {
        unsigned long long v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || v == 0)
            return std::nullopt;
        return v;
    };
    auto quota = number(cpu_max.substr(0, space));
    auto period = number(cpu_max.substr(space + 1));
    if (!quota || !period)
        return std::nullopt;
    // A part of a CPU still runs a thread: 1.5 CPUs keep two threads busy three quarters of the time.
    return static_cast<unsigned>(std::max(1ULL, (*quota + *period - 1) / *period));
}

std::optional<unsigned> cgroup_cpu_quota()
{
    // The "0::PATH" line of /proc/self/cgroup names the group (in a container, usually "/": its own root).
    std::string group = "/";
    {
        std::ifstream in("/proc/self/cgroup");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("0::", 0) == 0)
                group = line.substr(3);
    }
    const std::filesystem::path root = "/sys/fs/cgroup";
    auto dir = (root / std::filesystem::path(group).relative_path()).lexically_normal();
    if (dir.filename().empty())
        dir = dir.parent_path();
    std::optional<unsigned> tightest;
    // A parent's quota limits every group below it: the tightest on the way up to the root counts.
    for (int depth = 0; depth < 64; ++depth) {
        std::ifstream in(dir / "cpu.max");
        std::string line;
        if (std::getline(in, line))
            if (auto cpus = cpus_of_quota(line); cpus && (!tightest || *cpus < *tightest))
                tightest = cpus;
        if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir)
            break;
        dir = dir.parent_path();
    }
    return tightest;
}

unsigned usable_cpu_count()
{
    auto allowed = std::max<std::size_t>(1, allowed_cpus().size());
    auto quota = cgroup_cpu_quota();
    return static_cast<unsigned>(quota ? std::min<std::size_t>(allowed, *quota) : allowed);
}

result<void> pin_process(const cpu_list& cpus)
{
    if (cpus.empty())
        return fail("cannot pin to an empty CPU list");
    cpu_set_t set;
    CPU_ZERO(&set);
    for (auto c : cpus)
        CPU_SET(c, &set);
    auto pin = [&](pid_t tid) -> result<void> {
        if (::sched_setaffinity(tid, sizeof set, &set) != 0)
            return fail("cannot run on CPUs " + format_cpu_list(cpus) + ": " + std::strerror(errno) +
                        " (this process may use CPUs " + format_cpu_list(allowed_cpus()) + ")");
        return {};
    };
    // sched_setaffinity acts on one thread; the threads already running are listed in /proc/self/task.
    std::error_code ec;
    bool any = false;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        unsigned tid = 0;
        if (!parse_number(e.path().filename().string(), tid))
            continue;
        any = true;
        if (auto r = pin(static_cast<pid_t>(tid)); !r && errno != ESRCH)  // a thread that just ended is fine
            return r;
    }
    if (!any)
        return pin(0);
    return {};
}

cpu_plan default_cpu_plan(const cpu_list& usable)
{
    cpu_plan p;
    if (usable.size() < 2)
        return p;
    auto half = (usable.size() + 1) / 2;
    p.server.assign(usable.begin(), usable.begin() + static_cast<std::ptrdiff_t>(half));
    p.load.assign(usable.begin() + static_cast<std::ptrdiff_t>(half), usable.end());
    p.downstream = p.load;
    return p;
}

}  // namespace execbench
