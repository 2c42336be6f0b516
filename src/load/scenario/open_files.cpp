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

unsigned largest_in(const std::vector<request_spec>& mix, std::string_view parameter)
{
    unsigned largest = 0;
    for (const auto& r : mix) {
        for (auto q = r.path.find(parameter); q != std::string::npos; q = r.path.find(parameter, q + 1)) {
            // The whole name: after '?' or '&', and followed by '='.
            const auto end = q + parameter.size();
            if ((q == 0 || (r.path[q - 1] != '?' && r.path[q - 1] != '&')) || end >= r.path.size() ||
                r.path[end] != '=')
                continue;
            unsigned v = 0;
            std::from_chars(r.path.data() + end + 1, r.path.data() + r.path.size(), v);
            largest = std::max(largest, v);
        }
    }
    return largest;
}

}  // namespace

unsigned max_query_number(const scenario& s, std::string_view parameter)
{
    auto v = largest_in(s.mix, parameter);
    if (s.background)
        v = std::max(v, largest_in(s.background->mix, parameter));
    return v;
}

unsigned max_call_depth(const scenario& s)
{
    return max_query_number(s, "delayCallDepth");
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
