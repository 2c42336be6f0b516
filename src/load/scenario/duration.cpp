#include "execbench/load/scenario/duration.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace execbench::load {

result<duration> parse_duration(std::string_view input)
{
    auto text = trim(input);
    auto bad = [&] {
        std::string msg = "'";
        msg.append(input);
        msg.append("' is not a duration: expected a number of seconds or a number with a unit "
                   "(e.g. 250us, 500ms, 3s, 2m, 1h)");
        return fail(std::move(msg));
    };
    if (text.empty())
        return bad();
    std::size_t unit_at = 0;
    while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
        ++unit_at;
    auto number = text.substr(0, unit_at);
    auto unit = trim(std::string_view(text).substr(unit_at));
    if (number.empty() || std::count(number.begin(), number.end(), '.') > 1 || number == ".")
        return bad();
    double value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size())
        return bad();
    double scale = 0;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "ns")  // format_duration writes what is not a whole number of microseconds in ns
        scale = 1;
    else if (unit == "m" || unit == "min")
        scale = 60e9;
    else if (unit == "h")
        scale = 3600e9;
    else
        return bad();
    double ns = value * scale;
    if (!std::isfinite(ns) || ns > 1e18)
        return fail("'" + std::string(input) + "' is too long a duration");
    return duration{static_cast<std::int64_t>(std::llround(ns))};
}

std::string format_duration(duration d)
{
    using namespace std::chrono;
    auto ns = d.count();
    if (ns == 0)
        return "0s";
    if (ns % 1'000'000'000 != 0 || ns < 1'000'000'000) {
        if (ns % 1'000'000 == 0)
            return std::to_string(ns / 1'000'000) + "ms";
        if (ns % 1000 == 0)
            return std::to_string(ns / 1000) + "us";
        return std::to_string(ns) + "ns";
    }
    auto s = ns / 1'000'000'000;
    std::string out;
    if (s >= 3600 && s % 3600 == 0)
        return std::to_string(s / 3600) + "h";
    if (s >= 60) {
        out = std::to_string(s / 60) + "m";
        s %= 60;
        if (s == 0)
            return out;
    }
    return out + std::to_string(s) + "s";
}

}  // namespace execbench::load
