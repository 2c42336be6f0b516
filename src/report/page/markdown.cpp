#include "execbench/report/page/markdown.hpp"

namespace execbench::report {

namespace {

// A cell's text on one table line: a '|' would end the cell, a newline the row.
std::string cell_markdown(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

template <class Cells, class Text>
std::string table_line(const Cells& cells, Text text_of)
{
    std::string out = "|";
    for (const auto& c : cells) {
        auto text = cell_markdown(text_of(c));
        out += text.empty() ? " |" : " " + text + " |";
    }
    return out + "\n";
}

struct markdown_writer {
    std::string& out;

    void operator()(const heading& h) const { out += std::string(std::size_t(h.level), '#') + " " + h.text + "\n"; }
    void operator()(const paragraph& p) const { out += p.text + "\n"; }
    void operator()(const bullets& b) const
    {
        for (const auto& item : b.items)
            out += "- " + item + "\n";
    }
    void operator()(const table& t) const
    {
        out += table_line(t.header, [](const std::string& s) { return s; }) + "|";
        for (std::size_t i = 0; i < t.header.size(); ++i)
            out += "---|";
        out += "\n";
        for (const auto& row : t.rows)
            out += table_line(row, [](const cell& c) { return c.text; });
    }
    void operator()(const chart_ref& c) const
    {
        out += "![" + c.caption + "](" + c.file + ")\n";
        if (!c.data_hash.empty())
            out += "<!-- chart data " + c.data_hash + " -->\n";
    }
    void operator()(const comment& c) const { out += "<!-- " + c.text + " -->\n"; }
    void operator()(const details& d) const
    {
        out += "<details><summary>" + d.summary + "</summary>\n\n" + to_markdown(d.body) + "\n</details>\n";
    }
};

}  // namespace

std::string to_markdown(const page& p)
{
    std::string out;
    for (const auto& b : p.blocks) {
        if (!out.empty())
            out += "\n";  // one blank line between blocks
        std::visit(markdown_writer{out}, b.item);
    }
    return out;
}

}  // namespace execbench::report
