#include "execbench/core/file.hpp"

#include <fstream>
#include <sstream>

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

}  // namespace execbench
