#include "execbench/report/html_pages.hpp"

#include "execbench/core/text.hpp"
#include "execbench/report/page/html.hpp"
#include "execbench/report/word/charts.hpp"
#include "execbench/report/word/headline.hpp"
#include "execbench/report/word/map_page.hpp"
#include "execbench/report/word/suite_page.hpp"

#include <algorithm>

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

namespace {

std::string html_document(const std::string& title, const std::string& body)
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
    return html_document("execbench results: " + suite.name, nav + to_html(suite_page(suite, paths)));
}

std::string index_html(const std::vector<suite_data>& suites, const report_paths& paths)
{
    report::page p;
    // The answer first: a newcomer met the A/A control's chart first and the headline 2,900 px down (user review).
    p.add(heading{1, "execbench results"});
    auto local = paths;
    local.docs_link = ".";
    // The map answers "which model for my mix" at a glance: above the tables (issue 42).
    for (const auto& s : suites)
        if (auto map = map_headline(s, local); !map.empty())
            p.add(heading{2, "Where each model wins"}).append(std::move(map));
    p.add(heading{2, "Headline"}).append(headline_page(suites, local));
    p.add(heading{2, "Suites"});
    // The headline's suites in its order, then the rest as they come.
    auto listed = headline_suites(suites, paths);
    for (const auto& s : suites)
        if (std::find(listed.begin(), listed.end(), &s) == listed.end())
            listed.push_back(&s);
    bullets list;
    for (const auto* s : listed) {
        // A capacity search's scenario is no fixed-rate run: counted with those, and said apart.
        auto searched_only =
            std::count_if(s->capacity_scenarios.begin(), s->capacity_scenarios.end(), [&](const auto& c) {
                return std::find(s->scenarios.begin(), s->scenarios.end(), c) == s->scenarios.end();
            });
        auto item = "[" + s->name + "](" + s->name + ".html): " +
                    std::to_string(s->scenarios.size() + std::size_t(searched_only)) + " scenario(s), ";
        if (!s->capacity_scenarios.empty())
            item += std::to_string(s->capacity_scenarios.size()) + " with a capacity search, ";
        item += "arms " + join(s->models, ", ");
        list.items.push_back(std::move(item));
    }
    p.add(std::move(list));
    if (!summary_chart_data(suites).is_null())
        p.add(chart_ref{"latency p99 per scenario and arm, failures hatched", std::string(summary_chart_name), ""});
    auto nav = "<nav><a href=\"" + xml_escape(paths.methodology_link) + "\">methodology</a></nav>\n";
    return html_document("execbench results", nav + to_html(p));
}

}  // namespace execbench::report
