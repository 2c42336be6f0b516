#include "execbench/report/page/page.hpp"

namespace execbench::report {

table text_table(std::vector<std::string> header, const std::vector<std::vector<std::string>>& rows)
{
    table t{std::move(header), {}};
    for (const auto& r : rows)
        t.rows.emplace_back(r.begin(), r.end());
    return t;
}

std::optional<inline_link> link_at(std::string_view text, std::size_t at)
{
    if (at >= text.size() || text[at] != '[')
        return std::nullopt;
    auto close = text.find("](", at);
    auto end = close == std::string_view::npos ? close : text.find(')', close);
    if (end == std::string_view::npos)
        return std::nullopt;
    return inline_link{text.substr(at + 1, close - at - 1), text.substr(close + 2, end - close - 2), end + 1};
}

page& page::add(block b)
{
    blocks.push_back(std::move(b));
    return *this;
}

page& page::append(page part)
{
    for (auto& b : part.blocks)
        blocks.push_back(std::move(b));
    return *this;
}

}  // namespace execbench::report
