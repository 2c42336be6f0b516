#include "execbench/endpoints/sse.hpp"

#include <array>
#include <charconv>
#include <string_view>

namespace execbench::endpoints {

void append_sse_event(std::size_t index, std::size_t event_bytes, std::string& out)
{
    constexpr std::string_view prefix = "data: event-";
    constexpr std::string_view terminator = "\n\n";
    std::array<char, 24> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), index);
    (void)ec;  // 24 characters hold any 64-bit value
    const auto digit_count = static_cast<std::size_t>(end - digits.data());
    const auto natural = prefix.size() + digit_count + terminator.size();
    const auto padding = event_bytes > natural ? event_bytes - natural : 0;
    out.reserve(out.size() + natural + padding);
    out.append(prefix);
    out.append(digits.data(), digit_count);
    out.append(padding, '.');
    out.append(terminator);
}

}  // namespace execbench::endpoints
