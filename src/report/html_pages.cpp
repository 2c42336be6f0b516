#include "execbench/report/html_pages.hpp"

#include "execbench/core/text.hpp"
#include "execbench/report/chart_data/summary_chart.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/page/html.hpp"
#include "execbench/report/suite_page/map_section.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <algorithm>

namespace execbench::report {

std::string suite_html(const suite_data& suite, const report_paths& paths)
{
    auto nav = "<nav><a href=\"index.html\">all suites</a> · <a href=\"" + xml_escape(suite.name) +
               ".md\">this page as markdown</a> · <a href=\"" + xml_escape(paths.methodology_link) +
               "\">methodology</a> · <a href=\"" +
               xml_escape(paths.results_link + "/" + suite.name + "/" + raw_results_file(suite)) +
               "\">raw CSV</a></nav>\n";
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
        auto item = "[" + s->name + "](" + s->name +
                    ".html): " + std::to_string(s->scenarios.size() + std::size_t(searched_only)) + " scenario(s), ";
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
