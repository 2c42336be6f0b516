#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace execbench {

/// The execbench version, e.g. "0.1.0".
std::string_view version() noexcept;
/// The git revision the binary was built from, "-dirty" when tracked files differed ("unknown" outside a checkout).
std::string_view git_revision() noexcept;
/// A digest of every source the binaries are built from (src/, include/, apps/, cmake/, the CMake files): 16 hex
/// digits that name the code a figure came from, dirty checkout or not (cmake/source_digest.cmake).
std::string_view source_digest() noexcept;
/// The identity of a model's implementation, "coro@<16 hex digits>": a digest of its file and the files of the models
/// area it is built on, so a figure says which implementation of the model made it. Empty for a name that is no model.
std::string_view model_implementation(std::string_view model) noexcept;
/// CMake build type, e.g. "Release".
std::string_view build_type() noexcept;
/// Compiler id and version, e.g. "GNU 12.2.0".
std::string_view compiler() noexcept;
/// "0.1.0 (<revision>)", as the apps print for --version.
std::string version_string();
/// The current UTC time as ISO 8601, e.g. "2026-11-30T08:00:00Z", as results files record it.
std::string utc_timestamp();
/// The time a text starting with utc_timestamp()'s form names (a run id's suffix may follow); none for another form.
std::optional<std::time_t> parse_utc_timestamp(std::string_view text);
/// Sanitizers compiled in ("none", "address,undefined" or "thread").
std::string_view sanitizers() noexcept;

}  // namespace execbench
