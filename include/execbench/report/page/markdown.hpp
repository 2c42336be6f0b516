#pragma once

#include "execbench/report/page/page.hpp"

#include <string>

namespace execbench::report {

/// A page as GitHub-flavoured markdown: blocks apart by one blank line, table cells escaped.
std::string to_markdown(const page& p);

}  // namespace execbench::report
