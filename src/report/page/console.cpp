#include "execbench/report/page/console.hpp"

#include <algorithm>

namespace execbench::report {

std::string plain_text(std::string_view text)
{
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text.substr(i, 4) == "<br>") {
            out += "; ";
            i += 4;
        } else if (auto link = link_at(text, i)) {
            out += plain_text(link->text);
            i = link->end;
        } else if (text[i] == '`' || (text[i] == '*' && i + 1 < text.size() && text[i + 1] != ' ')) {
            ++i;  // an opening mark
        } else if (text[i] == '*' && i > 0 && text[i - 1] != ' ') {
            ++i;  // a closing one
        } else {
            out += text[i++];
        }
    }
    return out;
}

namespace {

// Display width: a UTF-8 continuation byte starts no new character (×, –, µ are one column each).
std::size_t width(const std::string& s)
{
    return std::size_t(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string padded(const std::string& s, std::size_t to, bool right)
{
    std::string fill(to > width(s) ? to - width(s) : 0, ' ');
    return right ? fill + s : s + fill;
}

void table_lines(std::string& out, const table& t)
{
    std::vector<std::size_t> widths(t.header.size(), 0);
    std::vector<bool> numeric(t.header.size(), false);
    for (std::size_t c = 0; c < t.header.size(); ++c)
        widths[c] = width(plain_text(t.header[c]));
    for (const auto& row : t.rows)
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], width(plain_text(row[c].text)));
            numeric[c] = numeric[c] || row[c].sort_key.has_value();
        }
    auto line = [&](auto cell_text, std::size_t cells) {
        std::string l;
        for (std::size_t c = 0; c < widths.size(); ++c)
            l += (c ? "  " : "") + padded(c < cells ? cell_text(c) : std::string{}, widths[c], numeric[c]);
        l.erase(l.find_last_not_of(' ') + 1);
        out += l + "\n";
    };
    if (std::any_of(t.header.begin(), t.header.end(), [](const std::string& h) { return !h.empty(); }))
        line([&](std::size_t c) { return plain_text(t.header[c]); }, t.header.size());
    for (const auto& row : t.rows)
        line([&](std::size_t c) { return plain_text(row[c].text); }, row.size());
}

struct console_writer {
    std::string& out;

    void operator()(const heading& h) const { out += plain_text(h.text) + "\n"; }
    void operator()(const paragraph& p) const { out += plain_text(p.text) + "\n"; }
    void operator()(const bullets& b) const
    {
        for (const auto& item : b.items)
            out += "- " + plain_text(item) + "\n";
    }
    void operator()(const table& t) const { table_lines(out, t); }
    void operator()(const chart_ref& c) const { out += plain_text(c.caption) + ": " + c.file + "\n"; }
    void operator()(const comment&) const {}
    void operator()(const details& d) const { out += plain_text(d.summary) + ":\n\n" + to_console(d.body); }
};

}  // namespace

std::string to_console(const page& p)
{
    std::string out;
    for (const auto& b : p.blocks) {
        if (std::holds_alternative<comment>(b.item))
            continue;
        if (!out.empty())
            out += "\n";
        std::visit(console_writer{out}, b.item);
    }
    return out;
}

}  // namespace execbench::report
