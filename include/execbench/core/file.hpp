#pragma once

#include "execbench/core/result.hpp"

#include <filesystem>
#include <string>

namespace execbench {

/// The whole content of `file`, bytes as stored; the error is "<file>: cannot be read".
result<std::string> read_file(const std::filesystem::path& file);

}  // namespace execbench
