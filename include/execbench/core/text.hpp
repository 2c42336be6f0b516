#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace execbench {

/// Appends `n` to `out` in decimal (the shortest exact form for floating point), without a temporary string.
template <class Number>
requires std::is_arithmetic_v<Number>
void append_number(Number n, std::string& out)
{
    char digits[32];  // holds any 64-bit integer and the shortest form of any double
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    (void)ec;
    out.append(digits, end);
}

/// `s` without the spaces, tabs and carriage returns at either end.
std::string_view trim(std::string_view s) noexcept;

/// The items of a comma-separated list, empty ones left out: "pool,,loop" → {"pool", "loop"}.
std::vector<std::string> split_list(std::string_view text);
/// The fields of `text` between `separator`s, empty ones kept ("a,,b" → {"a", "", "b"}; "" → {""}): for formats
/// where an empty field is a mistake to name or a value of its own. The views point into `text`.
std::vector<std::string_view> split_fields(std::string_view text, char separator);
/// The items with `separator` between them: split_list's inverse for ", " ({"pool", "loop"} → "pool, loop").
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// `s` with &, <, > and " as entities, for HTML and SVG text and attribute values.
std::string xml_escape(std::string_view s);

/// `v` with exactly `decimals` decimals ("%.*f"): the one fixed-point form of CSV cells, pages and logs.
std::string fixed(double v, int decimals);

/// `v` to `digits` significant digits ("%.*g", 1.5e+04 when it must), and "∞" for infinity: figures whose size varies.
std::string significant(double v, int digits);

/// Decimal digits grouped by commas in threes: 20000 → "20,000".
std::string grouped(std::uint64_t v);

/// Whole minutes and seconds, e.g. "3:07", as progress lines show elapsed and remaining time.
std::string clock_text(std::chrono::nanoseconds d);

}  // namespace execbench
