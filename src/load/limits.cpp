#include "execbench/load/limits.hpp"

#include <string>

#include <sys/resource.h>

namespace execbench::load {

std::uint64_t raise_open_files(std::uint64_t descriptors) noexcept
{
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < descriptors && lim.rlim_cur < lim.rlim_max) {
        rlimit raised = lim;
        raised.rlim_cur = lim.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            lim = raised;
    }
    return lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(lim.rlim_cur);
}

result<std::uint64_t> ensure_open_files(std::uint64_t connections)
{
    auto needed = connections + spare_descriptors;
    raise_open_files(needed);
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return fail("cannot read the open-file limit (RLIMIT_NOFILE)");
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < needed) {
        return fail("this run needs " + std::to_string(connections) + " connections, i.e. " + std::to_string(needed) +
                    " open files with " + std::to_string(spare_descriptors) +
                    " spare, but the open-file limit (RLIMIT_NOFILE) is " + std::to_string(lim.rlim_cur) +
                    " (hard limit " + std::to_string(lim.rlim_max) +
                    "). Remedy: raise the hard limit (as root: `ulimit -Hn " + std::to_string(needed) +
                    "`, or `nofile` in /etc/security/limits.conf, or LimitNOFILE= for a service), or run with "
                    "fewer connections (`--scale F` multiplies every user, connection and rate figure by F)");
    }
    return static_cast<std::uint64_t>(lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : lim.rlim_cur);
}

}  // namespace execbench::load
