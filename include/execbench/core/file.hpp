#pragma once

#include "execbench/core/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace execbench {

/// The whole content of `file`, bytes as stored; the error is "<file>: cannot be read".
result<std::string> read_file(const std::filesystem::path& file);

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
