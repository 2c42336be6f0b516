#include "execbench/stats/exposition.hpp"

#include "execbench/core/text.hpp"

#include <charconv>

namespace execbench::stats {

void for_each_sample(std::string_view exposition,
                     const std::function<void(std::string_view name, std::string_view labels, double value)>& sample)
{
    std::size_t at = 0;
    while (at < exposition.size()) {
        auto end = exposition.find('\n', at);
        auto line = exposition.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        at = end == std::string_view::npos ? exposition.size() : end + 1;
        if (line.empty() || line.front() == '#')
            continue;
        auto space = line.rfind(' ');
        if (space == std::string_view::npos)
            continue;
        auto name = line.substr(0, line.find_first_of("{ "));
        auto labels = trim(line.substr(name.size(), space - name.size()));
        double v = 0;
        auto value = trim(line.substr(space + 1));
        auto [end_of_value, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc{} || end_of_value != value.data() + value.size() || !(v >= 0 && v < 1.8e19))
            continue;
        sample(name, labels, v);
    }
}

}  // namespace execbench::stats
