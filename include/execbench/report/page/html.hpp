#pragma once

#include "execbench/report/page/page.hpp"

#include <string>
#include <string_view>

namespace execbench::report {

/// Inline text (`**bold**`, `*italic*`, `` `code` ``, `[text](target)`, `<br>`) as HTML, the rest escaped; a
/// target that is a sibling `.md` page links its `.html` version.
std::string inline_html(std::string_view md);

/// A page's blocks as HTML: tables sortable, each cell with a sort key as `data-sort`; charts as `<img>` of the SVG
/// file beside the page.
std::string to_html(const page& p);

/// A whole HTML page around `body` (to_html's blocks, and any markup of the caller's): its `title`, the inline style
/// sheet, and the few lines of inline script that sort a table by a header click, by each cell's `data-sort` where it
/// has one. Fetches nothing.
std::string html_document(const std::string& title, const std::string& body);

}  // namespace execbench::report
