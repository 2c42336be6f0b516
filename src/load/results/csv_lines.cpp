#include "execbench/load/results/csv_lines.hpp"

#include <cstdio>
#include <fstream>

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

result<void> append_lines(const std::filesystem::path& file, const std::string& header,
                          const std::vector<std::string>& lines)
{
    // A run's outputs go where --out says, folder and all: a missing folder found only after the run lost it.
    std::error_code ec;
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path(), ec);
    bool fresh = !std::filesystem::exists(file, ec) || std::filesystem::file_size(file, ec) == 0;
    if (!fresh) {
        std::ifstream in(file);
        std::string first;
        std::getline(in, first);
        if (first != header)
            return fail(file.string() + ": has other columns than this version writes; use another output folder");
    }
    std::ofstream out(file, std::ios::app);
    if (!out)
        return fail(file.string() + ": cannot open for writing");
    if (fresh)
        out << header << "\n";
    for (const auto& l : lines)
        out << l << "\n";
    out.flush();
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

}  // namespace execbench::load::detail
