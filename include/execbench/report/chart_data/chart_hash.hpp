#pragma once
// What a page and a chart list keep of a chart's data: its hash, so a chart is drawn again only when its data changed.

#include <string>
#include <string_view>

namespace execbench::report {

/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(std::string_view data);

}  // namespace execbench::report
