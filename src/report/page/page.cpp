#include "execbench/report/page/page.hpp"

namespace execbench::report {

table text_table(std::vector<std::string> header, const std::vector<std::vector<std::string>>& rows)
{
    table t{std::move(header), {}};
    for (const auto& r : rows)
        t.rows.emplace_back(r.begin(), r.end());
    return t;
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
