#pragma once

#include "execbench/report/page/page.hpp"

#include <string>
#include <string_view>

namespace execbench::report {

/// Inline text as a terminal shows it: the marks dropped (`**x**`, `*x*`, `` `x` `` → x; `[x](target)` → x), a
/// `<br>` as "; ".
std::string plain_text(std::string_view text);

/// A page as terminal lines: blocks apart by one blank line, tables in aligned columns (a cell with a sort key, a
/// number, to the right), bullets as "- ", charts as their caption and file, comments left out.
std::string to_console(const page& p);

}  // namespace execbench::report
