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
        out += "<table class=\"sortable\">";  // sort_script (below) sorts it by each cell's data-sort
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

namespace {

// Every page's style and script, beside the writer whose markup they read: `figure.chart` is figure_html's,
// `table.sortable` and `data-sort` the table writer's (`nav` is the report's link bar). Kept small and readable: the
// page must work from file://, fetching only its charts, files beside it.
constexpr std::string_view style_sheet = R"(<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1280px;padding:1em 2em;color:#1b1b1b}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}h3{margin-top:1.8em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}
th{background:#f2f4f7;cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
tr:nth-child(even) td{background:#fafafa}code{background:#f2f2f2;padding:0 .2em;border-radius:3px}
figure.chart{margin:1em 0;overflow-x:auto}figure.chart img{max-width:100%;height:auto}figcaption{font-size:.85em;color:#555}
nav{font-size:.9em;color:#555}
</style>
)";

// Click a column header to sort by it: cells that carry a sort key (data-sort) by that number, ahead of the rest,
// which sort by their text.
constexpr std::string_view sort_script = R"(<script>
document.querySelectorAll("table.sortable th").forEach(function (th, _) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var key = function (row) {
      var cell = row.cells[col];
      if (!cell) return "";
      var k = cell.getAttribute("data-sort");
      return k !== null ? parseFloat(k) : cell.textContent.toLowerCase();
    };
    Array.from(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b);
      var c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
      return asc ? c : -c;
    }).forEach(function (r) { body.appendChild(r); });
  });
});
</script>
)";

}  // namespace

std::string html_document(const std::string& title, const std::string& body)
{
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
           xml_escape(title) + "</title>\n" + std::string(style_sheet) + "</head>\n<body>\n" + body +
           std::string(sort_script) + "</body>\n</html>\n";
}

}  // namespace execbench::report
