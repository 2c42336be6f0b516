#pragma once

#include "execbench/core/result.hpp"

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace execbench {

/// The whole content of `file`, bytes as stored; the error is "<file>: cannot be read".
result<std::string> read_file(const std::filesystem::path& file);

/// Makes a new, uniquely named folder under the system's temporary one (`<prefix>-XXXXXX`) and returns its path;
/// the caller removes it (scratch_dir does so itself).
result<std::filesystem::path> make_scratch_folder(std::string_view prefix);

/// The last `max_bytes` of the files' text, in order, without trailing line ends ("..." marks a cut): what a
/// failure message quotes from a child process's log. A file that cannot be read adds nothing.
std::string log_tail(std::initializer_list<std::filesystem::path> files, std::size_t max_bytes);

/// A new, uniquely named folder under the system's temporary one (`<prefix>-XXXXXX`), removed with its content when
/// the object goes. `path()` is empty when it could not be made.
class scratch_dir {
public:
    explicit scratch_dir(std::string_view prefix);
    ~scratch_dir();
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace execbench
