#include "execbench/endpoints/sse.hpp"

#include <array>
#include <charconv>
#include <string_view>

namespace execbench::endpoints {

namespace {

constexpr std::string_view prefix = "data: event-";
constexpr std::string_view terminator = "\n\n";

std::size_t digit_count(std::size_t index) noexcept
{
    std::size_t digits = 1;
    for (; index >= 10; index /= 10)
        ++digits;
    return digits;
}

}  // namespace

std::size_t sse_event_size(std::size_t index, std::size_t event_bytes) noexcept
{
    const auto natural = prefix.size() + digit_count(index) + terminator.size();
    return event_bytes > natural ? event_bytes : natural;
}

void append_sse_event(std::size_t index, std::size_t event_bytes, std::string& out)
{
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
