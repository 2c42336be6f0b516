#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// The pages' document model: what bench-report says, built once, then rendered as markdown (page/markdown.hpp) and
// as HTML (page/html.hpp). Neither renderer reads the other's output.
//
// Text fields are inline text: plain text with the few inline marks both renderers know: **bold**, *italic*,
// `code`, [text](target) and <br> (a line break inside a table cell). Blocks carry the structure.
namespace execbench::report {

/// A table cell: its inline text, and the number a reader sorts its column by (none: the column sorts as text).
struct cell {
    std::string text;
    std::optional<double> sort_key;

    cell(std::string t) : text(std::move(t)) {}  // NOLINT: a cell is most often just its text
    cell(const char* t) : text(t) {}             // NOLINT
    cell(std::string t, double key) : text(std::move(t)), sort_key(key) {}
};

/// A table: a header row (all empty: a key/value table, whose header HTML leaves out) and rows of cells.
struct table {
    std::vector<std::string> header;
    std::vector<std::vector<cell>> rows;
};

/// A table of text cells only (no sort keys): a table whose rows are metrics, not items to order.
table text_table(std::vector<std::string> header, const std::vector<std::vector<std::string>>& rows);

/// A heading, level 1 to 4; HTML gives it the anchor GitHub would (`#scenario` links work in both).
struct heading {
    int level = 2;
    std::string text;
};

/// A paragraph of inline text.
struct paragraph {
    std::string text;
};

/// A bulleted list, one inline text per item.
struct bullets {
    std::vector<std::string> items;
};

/// A chart: the SVG file beside the page, its caption, and the hash of the data it was drawn from (kept in the
/// markdown so that a page whose chart data changed is told apart from one whose chart did not).
struct chart_ref {
    std::string caption;
    std::string file;
    std::string data_hash;  ///< "" when the chart is not drawn from hashed data
};

/// A note for whoever reads the markdown source (what generated it); HTML leaves it out.
struct comment {
    std::string text;
};

struct block;

/// Blocks in reading order: a page, or a part of one that a caller appends.
struct page {
    std::vector<block> blocks;

    /// Appends one block.
    page& add(block b);
    /// Appends every block of another part.
    page& append(page part);
    /// True when nothing was added.
    [[nodiscard]] bool empty() const { return blocks.empty(); }
};

/// A folded part: its summary line and what unfolds.
struct details {
    std::string summary;
    page body;
};

/// An inline link, `[text](target)`, as the renderers read it out of a block's text.
struct inline_link {
    std::string_view text;
    std::string_view target;
    std::size_t end = 0;  ///< the offset just past its `)`
};
/// The link that starts at `at` (a `[`) in `text`, or nothing when none is complete there.
std::optional<inline_link> link_at(std::string_view text, std::size_t at);

/// One block of a page.
struct block {
    std::variant<heading, paragraph, bullets, table, chart_ref, comment, details> item;

    template <class T>
    block(T b) : item(std::move(b))  // NOLINT: every block kind is a block
    {
    }
};

}  // namespace execbench::report
