#include "execbench/core/base64.hpp"

#include <array>

namespace execbench {

namespace {

constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Each character's 6-bit value, or -1 for characters outside the alphabet.
constexpr std::array<std::int8_t, 256> make_values()
{
    std::array<std::int8_t, 256> values{};
    values.fill(-1);
    for (std::size_t i = 0; i < alphabet.size(); ++i)
        values[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    return values;
}
constexpr auto values = make_values();

}  // namespace

std::string encode_base64(std::span<const std::uint8_t> bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        std::uint32_t group = std::uint32_t{bytes[i]} << 16 | std::uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6)
            out += alphabet[(group >> shift) & 0x3f];
    }
    std::size_t left = bytes.size() - i;
    if (left > 0) {
        std::uint32_t group = std::uint32_t{bytes[i]} << 16;
        if (left == 2)
            group |= std::uint32_t{bytes[i + 1]} << 8;
        out += alphabet[(group >> 18) & 0x3f];
        out += alphabet[(group >> 12) & 0x3f];
        out += left == 2 ? alphabet[(group >> 6) & 0x3f] : '=';
        out += '=';
    }
    return out;
}

result<std::vector<std::uint8_t>> decode_base64(std::string_view text)
{
    if (text.size() % 4 != 0)
        return fail("base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=')
        padding = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
    std::vector<std::uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    std::uint32_t group = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        int value = 0;
        if (i < text.size() - padding) {
            value = values[static_cast<unsigned char>(text[i])];
            if (value < 0)
                return fail("base64: character " + std::to_string(i + 1) + " ('" + std::string(1, text[i]) +
                            "') is not base64");
        }
        group = group << 6 | static_cast<std::uint32_t>(value);
        if (i % 4 == 3) {
            out.push_back(static_cast<std::uint8_t>(group >> 16));
            out.push_back(static_cast<std::uint8_t>(group >> 8));
            out.push_back(static_cast<std::uint8_t>(group));
            group = 0;
        }
    }
    // Each '=' stood for one byte of the last group (at least 3 bytes were pushed when there is padding);
    // popping them, not resize(size() - padding), leaves GCC 12 no size to suspect of wrapping.
    for (; padding > 0; --padding)
        out.pop_back();
    return out;
}

}  // namespace execbench
