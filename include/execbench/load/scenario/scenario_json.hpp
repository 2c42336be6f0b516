#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <filesystem>
#include <string_view>

namespace execbench::load {

/// Parses scenario JSON. `file` names the source in error messages; `body_dir` resolves body_file entries.
/// Every mistake is rejected with "<file>: <field>: <what was expected>".
result<scenario> parse_scenario(std::string_view json_text, const std::filesystem::path& file,
                                const std::filesystem::path& body_dir);

}  // namespace execbench::load
