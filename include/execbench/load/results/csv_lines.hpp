#pragma once

#include "execbench/core/result.hpp"
#include "execbench/core/text.hpp"  // fixed(), which the CSV writers use beside csv_field

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load::detail {

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(std::string_view v);
/// Appends `lines` to `file`, writing `header` first when the file is new; fails when its header differs.
result<void> append_lines(const std::filesystem::path& file, const std::string& header,
                          const std::vector<std::string>& lines);

}  // namespace execbench::load::detail
