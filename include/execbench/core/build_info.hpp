#pragma once

#include <string>
#include <string_view>

namespace execbench {

/// The execbench version, e.g. "0.1.0".
std::string_view version() noexcept;
/// The git revision the binary was built from, "-dirty" when tracked files differed ("unknown" outside a checkout).
std::string_view git_revision() noexcept;
/// CMake build type, e.g. "Release".
std::string_view build_type() noexcept;
/// Compiler id and version, e.g. "GNU 12.2.0".
std::string_view compiler() noexcept;
/// "0.1.0 (<revision>)", as the apps print for --version.
std::string version_string();
/// The current UTC time as ISO 8601, e.g. "2026-11-30T08:00:00Z", as results files record it.
std::string utc_timestamp();
/// Sanitizers compiled in ("none", "address,undefined" or "thread").
std::string_view sanitizers() noexcept;

}  // namespace execbench
