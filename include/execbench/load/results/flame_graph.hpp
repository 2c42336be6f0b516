#pragma once

#include "execbench/load/record/profile_record.hpp"

#include <string>
#include <string_view>

namespace execbench::load {

/// A flame graph of `stacks` as a self-contained SVG (no script, no ids, so several can be inlined in one page):
/// one box per frame, its width the frame's share of the samples, callers below callees, siblings in name order;
/// each box's tooltip names the frame, its samples and share. The server's own code (`execbench::`) is blue, the
/// kernel's orange, everything else warm colours by name.
std::string flame_graph_svg(const folded_stacks& stacks, std::string_view title);

}  // namespace execbench::load
