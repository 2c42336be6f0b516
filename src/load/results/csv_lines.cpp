#include "execbench/load/results/csv_lines.hpp"

#include "execbench/core/file.hpp"

#include <algorithm>
#include <system_error>

namespace execbench::load {

int csv_table::column(std::string_view name) const
{
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return static_cast<int>(i);
    return -1;
}

namespace {

/// The records of CSV text, each a list of fields (RFC 4180 quoting; a line break inside quotes stays in its field).
std::vector<std::vector<std::string>> parse_records(std::string_view text)
{
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            row.push_back(std::move(field));
            field.clear();
            rows.push_back(std::move(row));
            row.clear();
            any = false;
        } else if (c != '\r') {
            field += c;
            any = true;
        }
    }
    if (any || !row.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

result<csv_table> read_csv(const std::filesystem::path& file)
{
    auto read = read_file(file);
    if (!read)
        return read.err();
    auto rows = parse_records(*read);
    if (rows.empty())
        return fail(file.string() + ": empty");
    csv_table t;
    t.header = std::move(rows.front());
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i].size() != t.header.size())
            return fail(file.string() + ": row " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                        " fields, expected " + std::to_string(t.header.size()));
        t.rows.push_back(std::move(rows[i]));
    }
    return t;
}

}  // namespace execbench::load

namespace execbench::load::detail {

std::string csv_field(std::string_view v)
{
    if (v.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(v);
    std::string out = "\"";
    for (char c : v) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

namespace {

std::string_view without_line_break(std::string_view header)
{
    while (!header.empty() && (header.back() == '\n' || header.back() == '\r'))
        header.remove_suffix(1);
    return header;
}

std::string join_fields(const std::vector<std::string>& fields)
{
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i)
        out += (i ? "," : "") + csv_field(fields[i]);
    return out;
}

/// Rewrites `file` under `header`: each row's cells moved to their columns' places, the new columns empty. Written
/// beside the file and renamed over it, so a failure leaves the file as it was.
result<void> widen(const std::filesystem::path& file, std::string_view header)
{
    auto table = read_csv(file);
    if (!table)
        return table.err();
    auto wanted = parse_records(header);
    const auto& columns = wanted.front();
    std::vector<int> from;
    for (const auto& c : columns)
        from.push_back(table->column(c));
    std::string text = std::string(header) + "\n";
    for (const auto& row : table->rows) {
        std::vector<std::string> cells;
        for (int i : from)
            cells.push_back(i < 0 ? std::string{} : row[static_cast<std::size_t>(i)]);
        text += join_fields(cells) + "\n";
    }
    auto scratch = std::filesystem::path(file.string() + ".widening");
    {
        std::ofstream out(scratch, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out)
            return fail(scratch.string() + ": write failed while adding this version's columns");
    }
    std::error_code ec;
    std::filesystem::rename(scratch, file, ec);
    if (ec)
        return fail(file.string() + ": could not be replaced by its widened copy: " + ec.message());
    return {};
}

}  // namespace

result<column_fit> fit_columns(const std::filesystem::path& file, std::string_view header)
{
    header = without_line_break(header);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec) || std::filesystem::file_size(file, ec) == 0)
        return column_fit::fresh;
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    if (without_line_break(first) == header)
        return column_fit::same;
    auto have = parse_records(first), want = parse_records(header);
    if (have.empty() || want.empty())
        return fail(file.string() + ": its first line is not a CSV header; use another output folder");
    for (const auto& c : have.front())
        if (std::find(want.front().begin(), want.front().end(), c) == want.front().end())
            return fail(file.string() + ": has column '" + c +
                        "', which this version does not write; use another output folder");
    return column_fit::wider;
}

result<void> open_rows(const std::filesystem::path& file, std::string_view header, std::ofstream& out)
{
    // A run's outputs go where --out says, folder and all: a missing folder found only after the run lost it.
    std::error_code ec;
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path(), ec);
    auto fit = fit_columns(file, header);
    if (!fit)
        return fit.err();
    if (*fit == column_fit::wider)
        if (auto w = widen(file, without_line_break(header)); !w)
            return w;
    out.open(file, std::ios::app | std::ios::binary);
    if (!out)
        return fail(file.string() + ": cannot be opened for writing");
    if (*fit == column_fit::fresh)
        out << without_line_break(header) << "\n";
    return {};
}

result<void> append_lines(const std::filesystem::path& file, const std::string& header,
                          const std::vector<std::string>& lines)
{
    std::ofstream out;
    if (auto ok = open_rows(file, header, out); !ok)
        return ok;
    for (const auto& l : lines)
        out << l << "\n";
    out.flush();
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

}  // namespace execbench::load::detail
