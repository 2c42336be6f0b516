#include "execbench/report/html.hpp"

#include "execbench/core/text.hpp"
#include "execbench/report/charts.hpp"
#include "execbench/report/headline.hpp"
#include "execbench/report/markdown.hpp"
#include "execbench/report/workload_map.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace execbench::report {

namespace {

// Kept small and readable: the page must work from file://, fetching only its charts, files beside it.
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

// Click a column header to sort by it: numbers (1,234 · ~56 ms) numerically, other text alphabetically.
constexpr std::string_view sort_script = R"(<script>
document.querySelectorAll("table.sortable th").forEach(function (th, _) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var key = function (row) {
      var t = row.cells[col] ? row.cells[col].textContent : "";
      var n = parseFloat(t.replace(/[~,]/g, ""));
      return isNaN(n) ? t.toLowerCase() : n;
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

std::vector<std::string> table_cells(std::string_view line)
{
    std::vector<std::string> cells;
    std::string cur;
    for (std::size_t i = 1; i < line.size(); ++i) {  // skip the leading '|'
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
            cur += '|';
            ++i;
        } else if (line[i] == '|') {
            auto b = cur.find_first_not_of(' ');
            auto e = cur.find_last_not_of(' ');
            cells.push_back(b == std::string::npos ? std::string{} : cur.substr(b, e - b + 1));
            cur.clear();
        } else {
            cur += line[i];
        }
    }
    return cells;
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
        if (md[i] == '[') {
            auto close = md.find("](", i);
            auto end = close == std::string_view::npos ? close : md.find(')', close);
            if (end != std::string_view::npos) {
                out += "<a href=\"" + xml_escape(html_target(std::string(md.substr(close + 2, end - close - 2)))) + "\">" +
                       inline_html(md.substr(i + 1, close - i - 1)) + "</a>";
                i = end + 1;
                continue;
            }
        }
        out += xml_escape(md.substr(i, 1));
        ++i;
    }
    return out;
}

namespace {

/// A markdown table's lines (header, rule, rows) as a sortable HTML table.
std::string table_html(const std::vector<std::string>& table)
{
    std::string html = "<table class=\"sortable\">";
    auto header = table_cells(table[0]);
    bool blank = std::all_of(header.begin(), header.end(), [](const std::string& c) { return c.empty(); });
    if (!blank) {  // a key/value table has no header worth a row
        html += "<thead><tr>";
        for (const auto& c : header)
            html += "<th>" + inline_html(c) + "</th>";
        html += "</tr></thead>";
    }
    html += "<tbody>\n";
    for (std::size_t r = 2; r < table.size(); ++r) {
        html += "<tr>";
        for (const auto& c : table_cells(table[r]))
            html += "<td>" + inline_html(c) + "</td>";
        html += "</tr>\n";
    }
    return html + "</tbody></table>\n";
}

/// A markdown image line `![caption](file.svg)` as a figure; "" when the line is not one.
std::string figure_html(const std::string& line)
{
    auto close = line.find("](");
    auto end = line.find(')', close);
    if (close == std::string::npos || end == std::string::npos)
        return {};
    // The chart is the file the markdown links, not a copy of it: each picture is committed once.
    auto src = xml_escape(line.substr(close + 2, end - close - 2));
    auto caption = xml_escape(line.substr(2, close - 2));
    return "<figure class=\"chart\" data-chart=\"" + src + "\"><img src=\"" + src + "\" alt=\"" + caption +
           "\" loading=\"lazy\"><figcaption>" + caption + " (<a href=\"" + src + "\">SVG</a>)</figcaption></figure>\n";
}

}  // namespace

std::string block_html(std::string_view md)
{
    std::ostringstream html;
    std::istringstream in{std::string(md)};
    std::string line, paragraph;
    std::vector<std::string> table, list;
    bool in_comment = false;
    auto flush = [&] {
        if (!paragraph.empty())
            html << "<p>" << inline_html(paragraph) << "</p>\n";
        paragraph.clear();
        if (!list.empty()) {
            html << "<ul>\n";
            for (const auto& item : list)
                html << "<li>" << inline_html(item) << "</li>\n";
            html << "</ul>\n";
        }
        list.clear();
        if (table.size() >= 2)
            html << table_html(table);
        table.clear();
    };
    while (std::getline(in, line)) {
        if (in_comment || line.rfind("<!--", 0) == 0) {
            in_comment = line.find("-->") == std::string::npos;
            continue;
        }
        if (line.rfind("<details>", 0) == 0 || line.rfind("</details>", 0) == 0) {
            flush();
            html << line << "\n";
        } else if (line.rfind('#', 0) == 0) {
            flush();
            auto level = line.find_first_not_of('#');
            auto text = line.substr(level + 1);
            html << "<h" << level << " id=\"" << slug(text) << "\">" << inline_html(text) << "</h" << level << ">\n";
        } else if (line.rfind('|', 0) == 0) {
            if (!paragraph.empty() || !list.empty()) {
                auto keep = table;
                table.clear();
                flush();
                table = keep;
            }
            table.push_back(line);
        } else if (line.rfind("- ", 0) == 0) {
            if (!table.empty() || !paragraph.empty())
                flush();
            list.push_back(line.substr(2));
        } else if (line.rfind("![", 0) == 0) {
            flush();
            html << figure_html(line);
        } else if (line.empty()) {
            flush();
        } else {
            if (!table.empty() || !list.empty())
                flush();
            paragraph += (paragraph.empty() ? "" : " ") + line;
        }
    }
    flush();
    return html.str();
}

namespace {

std::string page(const std::string& title, const std::string& body)
{
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
           xml_escape(title) + "</title>\n" + std::string(style_sheet) + "</head>\n<body>\n" + body +
           std::string(sort_script) + "</body>\n</html>\n";
}

}  // namespace

std::string suite_html(const suite_data& suite, const report_paths& paths)
{
    auto nav = "<nav><a href=\"index.html\">all suites</a> · <a href=\"" + xml_escape(suite.name) +
               ".md\">this page as markdown</a> · <a href=\"" + xml_escape(paths.methodology_link) +
               "\">methodology</a> · <a href=\"" +
               xml_escape(paths.results_link + "/" + suite.name + "/" + raw_results_file(suite)) + "\">raw CSV</a></nav>\n";
    return page("execbench results: " + suite.name, nav + block_html(suite_markdown(suite, paths)));
}

std::string index_html(const std::vector<suite_data>& suites, const report_paths& paths)
{
    std::ostringstream md;
    // The answer first: a newcomer met the A/A control's chart first and the headline 2,900 px down (user review).
    md << "# execbench results\n\n";
    auto local = paths;
    local.docs_link = ".";
    // The map answers "which model for my mix" at a glance: above the tables (issue 42).
    for (const auto& s : suites)
        if (auto map = map_headline(s, local); !map.empty())
            md << "## Where each model wins\n\n" << map << "\n";
    md << "## Headline\n";
    md << headline_block(suites, local);
    md << "\n## Suites\n\n";
    // The headline's suites in its order, then the rest as they come.
    auto listed = headline_suites(suites, paths);
    for (const auto& s : suites)
        if (std::find(listed.begin(), listed.end(), &s) == listed.end())
            listed.push_back(&s);
    for (const auto* s : listed) {
        // A capacity search's scenario is no fixed-rate run: counted with those, and said apart.
        auto searched_only =
            std::count_if(s->capacity_scenarios.begin(), s->capacity_scenarios.end(), [&](const auto& c) {
                return std::find(s->scenarios.begin(), s->scenarios.end(), c) == s->scenarios.end();
            });
        md << "- [" << s->name << "](" << s->name << ".html): " << s->scenarios.size() + std::size_t(searched_only)
           << " scenario(s), ";
        if (!s->capacity_scenarios.empty())
            md << s->capacity_scenarios.size() << " with a capacity search, ";
        md << "arms " << [&] {
            std::string a;
            for (const auto& m : s->models)
                a += (a.empty() ? "" : ", ") + m;
            return a;
        }() << "\n";
    }
    if (!summary_chart_data(suites).is_null())
        md << "\n![latency p99 per scenario and arm, failures hatched](" << summary_chart_name << ")\n";
    auto body = block_html(md.str());
    auto nav = "<nav><a href=\"" + xml_escape(paths.methodology_link) + "\">methodology</a></nav>\n";
    return page("execbench results", nav + body);
}

}  // namespace execbench::report
