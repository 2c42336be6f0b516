#pragma once
// The HTML site: each suite's page and the index, built from the same pages as the markdown, rendered and wrapped by
// page/html.hpp.

#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"

#include <string>
#include <vector>

namespace execbench::report {

/// The HTML page of one suite: a link bar and the suite page in an html_document (inline CSS, a few lines of inline
/// script to sort tables), each chart as an `<img>` of the SVG file the markdown links (relative, so it works from
/// file://). Fetches nothing else.
std::string suite_html(const suite_data& suite, const report_paths& paths);

/// The index page: every suite with its page, and the headline table.
std::string index_html(const std::vector<suite_data>& suites, const report_paths& paths);

}  // namespace execbench::report
