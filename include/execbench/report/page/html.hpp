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

}  // namespace execbench::report
