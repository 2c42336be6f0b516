#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace execbench::test_support {

/// A fresh, uniquely named directory under the system temp dir; removed with its contents when the object goes.
struct temp_dir {
    std::filesystem::path path;

    explicit temp_dir(const std::string& prefix = "execbench-test")
    {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("cannot create a temporary directory from " + pattern);
        path = pattern;
    }
    ~temp_dir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace execbench::test_support
