#include "execbench/core/build_info.hpp"

#include <cstdio>
#include <ctime>

// EXECBENCH_VERSION, EXECBENCH_BUILD_TYPE and EXECBENCH_COMPILER come from CMake (configure-time facts); the git
// revision is generated at build time into git_revision.cpp.
namespace execbench {

std::string_view version() noexcept
{
    return EXECBENCH_VERSION;
}
std::string_view build_type() noexcept
{
    return EXECBENCH_BUILD_TYPE;
}
std::string_view compiler() noexcept
{
    return EXECBENCH_COMPILER;
}
std::string version_string()
{
    return std::string(version()) + " (" + std::string(git_revision()) + ")";
}

std::string utc_timestamp()
{
    auto t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::optional<std::time_t> parse_utc_timestamp(std::string_view text)
{
    std::tm t{};
    char z = 0;
    const std::string head(text.substr(0, 20));
    if (std::sscanf(head.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min,
                    &t.tm_sec, &z) != 7 ||
        z != 'Z')
        return std::nullopt;
    t.tm_year -= 1900;
    t.tm_mon -= 1;
    return timegm(&t);
}

std::string_view sanitizers() noexcept
{
#if defined(EXECBENCH_SANITIZER)
    return EXECBENCH_SANITIZER;
#else
    return "none";
#endif
}

}  // namespace execbench
