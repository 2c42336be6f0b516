#include "execbench/core/file.hpp"

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

scratch_dir::scratch_dir(std::string_view prefix)
{
    auto pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) != nullptr)
        path_ = pattern;
}

scratch_dir::~scratch_dir()
{
    std::error_code ignored;
    if (!path_.empty())
        std::filesystem::remove_all(path_, ignored);
}

}  // namespace execbench
