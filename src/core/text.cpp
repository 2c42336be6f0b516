#include "execbench/core/text.hpp"

#include <cstdio>

namespace execbench {

std::string clock_text(std::chrono::nanoseconds d)
{
    auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
    return buf;
}

}  // namespace execbench
