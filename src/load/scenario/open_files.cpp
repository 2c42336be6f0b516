#include "execbench/load/scenario/open_files.hpp"

#include "execbench/core/machine.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace execbench::load {

result<std::uint64_t> ensure_open_files(std::uint64_t connections)
{
    auto needed = connections + spare_descriptors;
    auto limit = raise_open_file_limit(needed);
    if (limit == 0)
        return fail("cannot read the open-file limit (RLIMIT_NOFILE)");
    if (limit < needed) {
        return fail("this run needs " + std::to_string(connections) + " connections, i.e. " + std::to_string(needed) +
                    " open files with " + std::to_string(spare_descriptors) +
                    " spare, but the open-file limit (RLIMIT_NOFILE) is " + std::to_string(limit) +
                    " and can go no higher than " + std::to_string(open_file_ceiling()) +
                    " (the hard limit, capped by fs.nr_open). Remedy: raise the hard limit (as root: `ulimit -Hn " +
                    std::to_string(needed) +
                    "`, or `nofile` in /etc/security/limits.conf, or LimitNOFILE= for a service), or run with "
                    "fewer connections (`--scale F` multiplies every user, connection and rate figure by F)");
    }
    return limit;
}

namespace {

unsigned depth_of(const std::vector<request_spec>& mix)
{
    unsigned deepest = 0;
    for (const auto& r : mix) {
        auto q = r.path.find("delayCallDepth=");
        if (q == std::string::npos)
            continue;
        unsigned d = 0;
        const char* b = r.path.data() + q + 15;
        std::from_chars(b, r.path.data() + r.path.size(), d);
        deepest = std::max(deepest, d);
    }
    return deepest;
}

}  // namespace

unsigned max_call_depth(const scenario& s)
{
    auto d = depth_of(s.mix);
    if (s.background)
        d = std::max(d, depth_of(s.background->mix));
    return d;
}

descriptor_needs descriptors_needed(const scenario& s)
{
    descriptor_needs n;
    auto clients = connections_needed(s);
    n.load_generator = clients + spare_descriptors;
    auto depth = max_call_depth(s);
    // Each in-flight request holds its client socket plus, per call level, an outgoing socket; a call back into the
    // same server also holds the accepted end. A separate downstream takes the accepted ends of the first level.
    std::uint64_t per_request = 1;
    if (depth > 0)
        per_request = s.server.downstream == "separate" ? 2 : 1 + 2 * std::uint64_t{depth};
    n.server = clients * per_request + spare_descriptors;
    // The downstream accepts the first level and calls itself for the levels below it.
    if (depth > 0 && s.server.downstream == "separate")
        n.downstream = clients * (2 * std::uint64_t{depth} - 1) + spare_descriptors;
    return n;
}

}  // namespace execbench::load
