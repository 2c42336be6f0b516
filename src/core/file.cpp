#include "execbench/core/file.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace execbench {

result<std::string> read_file(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return fail(file.string() + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return fail(file.string() + ": cannot be read");
    return text.str();
}

result<std::filesystem::path> make_scratch_folder(std::string_view prefix)
{
    std::error_code ec;
    auto pattern = (std::filesystem::temp_directory_path(ec) / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
        return fail("cannot create a temporary folder " + pattern + ": " + std::system_category().message(errno));
    return std::filesystem::path(pattern);
}

std::string log_tail(std::initializer_list<std::filesystem::path> files, std::size_t max_bytes)
{
    std::string text;
    for (const auto& f : files)
        text += read_file(f).value_or("");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    if (text.size() > max_bytes)
        text = "..." + text.substr(text.size() - max_bytes);
    return text;
}

scratch_dir::scratch_dir(std::string_view prefix)
{
    if (auto made = make_scratch_folder(prefix))
        path_ = *made;
}

scratch_dir::~scratch_dir()
{
    std::error_code ignored;
    if (!path_.empty())
        std::filesystem::remove_all(path_, ignored);
}

}  // namespace execbench
