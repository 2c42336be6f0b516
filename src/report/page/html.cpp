#include "execbench/report/page/html.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace execbench::report {

namespace {

/// A heading's anchor as GitHub makes it, so the markdown's `#scenario` links work in the HTML too.
std::string slug(std::string_view text)
{
    std::string out;
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '_')
            out += static_cast<char>(std::tolower(u));
        else if (c == ' ')
            out += '-';
    }
    return out;
}

/// A markdown link target as the HTML page should follow it: sibling pages as their HTML version.
std::string html_target(std::string target)
{
    auto hash = target.find('#');
    auto path_end = hash == std::string::npos ? target.size() : hash;
    auto md = target.rfind(".md", path_end);
    bool sibling = target.find('/') == std::string::npos || target.rfind("./", 0) == 0;
    if (sibling && md != std::string::npos && md + 3 == path_end && target.find("://") == std::string::npos)
        target.replace(md, 3, ".html");
    return target;
}

}  // namespace

std::string inline_html(std::string_view md)
{
    std::string out;
    std::size_t i = 0;
    while (i < md.size()) {
        if (md.substr(i, 2) == "**") {
            auto e = md.find("**", i + 2);
            if (e != std::string_view::npos) {
                out += "<strong>" + inline_html(md.substr(i + 2, e - i - 2)) + "</strong>";
                i = e + 2;
                continue;
            }
        }
        if (md[i] == '*' && i + 1 < md.size() && md[i + 1] != '*' && md[i + 1] != ' ') {
            auto e = md.find('*', i + 1);
            if (e != std::string_view::npos && md[e - 1] != ' ') {
                out += "<em>" + inline_html(md.substr(i + 1, e - i - 1)) + "</em>";
                i = e + 1;
                continue;
            }
        }
        // The one tag the pages' markdown uses: line breaks inside a table cell (every pair's verdict on its line).
        if (md.substr(i, 4) == "<br>") {
            out += "<br>";
            i += 4;
            continue;
        }
        if (md[i] == '`') {
            auto e = md.find('`', i + 1);
            if (e != std::string_view::npos) {
                out += "<code>" + xml_escape(md.substr(i + 1, e - i - 1)) + "</code>";
                i = e + 1;
                continue;
            }
        }
        if (auto link = link_at(md, i)) {
            out += "<a href=\"" + xml_escape(html_target(std::string(link->target))) + "\">" + inline_html(link->text) +
                   "</a>";
            i = link->end;
            continue;
        }
        out += xml_escape(md.substr(i, 1));
        ++i;
    }
    return out;
}

namespace {

/// A chart as a figure: the SVG file the markdown links, not a copy of it (each picture is committed once).
std::string figure_html(const std::string& file, const std::string& caption_text)
{
    auto src = xml_escape(file);
    auto caption = xml_escape(caption_text);
    return "<figure class=\"chart\" data-chart=\"" + src + "\"><img src=\"" + src + "\" alt=\"" + caption +
           "\" loading=\"lazy\"><figcaption>" + caption + " (<a href=\"" + src + "\">SVG</a>)</figcaption></figure>\n";
}

/// A sort key as text the browser's parseFloat reads back: the shortest that round-trips, "Infinity" for a ratio
/// against zero, and "" for no number at all (the cell then sorts by its text).
std::string sort_key_text(double v)
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    std::array<char, 32> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc{} ? std::string(buf.data(), end) : std::string{"0"};
}

struct html_writer {
    std::string& out;

    void operator()(const heading& h) const
    {
        auto n = std::to_string(h.level);
        out += "<h" + n + " id=\"" + slug(h.text) + "\">" + inline_html(h.text) + "</h" + n + ">\n";
    }
    void operator()(const paragraph& p) const { out += "<p>" + inline_html(p.text) + "</p>\n"; }
    void operator()(const bullets& b) const
    {
        out += "<ul>\n";
        for (const auto& item : b.items)
            out += "<li>" + inline_html(item) + "</li>\n";
        out += "</ul>\n";
    }
    void operator()(const table& t) const
    {
        out += "<table class=\"sortable\">";
        bool blank = std::all_of(t.header.begin(), t.header.end(), [](const std::string& c) { return c.empty(); });
        if (!blank) {  // a key/value table has no header worth a row
            out += "<thead><tr>";
            for (const auto& c : t.header)
                out += "<th>" + inline_html(c) + "</th>";
            out += "</tr></thead>";
        }
        out += "<tbody>\n";
        for (const auto& row : t.rows) {
            out += "<tr>";
            for (const auto& c : row) {
                auto key = c.sort_key ? sort_key_text(*c.sort_key) : std::string{};
                out += (key.empty() ? std::string{"<td>"} : "<td data-sort=\"" + key + "\">") + inline_html(c.text) +
                       "</td>";
            }
            out += "</tr>\n";
        }
        out += "</tbody></table>\n";
    }
    void operator()(const chart_ref& c) const { out += figure_html(c.file, c.caption); }
    void operator()(const comment&) const {}
    void operator()(const details& d) const
    {
        out += "<details><summary>" + inline_html(d.summary) + "</summary>\n" + to_html(d.body) + "</details>\n";
    }
};

}  // namespace

std::string to_html(const page& p)
{
    std::string out;
    for (const auto& b : p.blocks)
        std::visit(html_writer{out}, b.item);
    return out;
}

}  // namespace execbench::report
