#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace execbench {

/// Standard base64 (RFC 4648 section 4, with '=' padding), as HdrHistogram's interval logs carry histograms.
std::string encode_base64(std::span<const std::uint8_t> bytes);
/// Reads standard base64; the error names the first character or length that is not base64.
result<std::vector<std::uint8_t>> decode_base64(std::string_view text);

}  // namespace execbench
