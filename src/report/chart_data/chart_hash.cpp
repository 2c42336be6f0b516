#include "execbench/report/chart_data/chart_hash.hpp"

#include <cstdint>
#include <cstdio>

namespace execbench::report {

std::string fnv1a_hex(std::string_view data)
{
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

}  // namespace execbench::report
