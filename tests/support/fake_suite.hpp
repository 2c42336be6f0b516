#pragma once
// A suite's results folder written by hand, as bench-suite writes it, for the report's tests.

#include <filesystem>
#include <string>

namespace execbench::test_support {

/// Writes `text` to `p`, creating its folders.
void write_file(const std::filesystem::path& p, const std::string& text);

/// The whole of a file, byte for byte ("" when it cannot be read).
std::string read_back(const std::filesystem::path& p);

/// A suite folder `root/name` as bench-suite writes it: pool ok, fiber with request errors, loop not run.
std::filesystem::path fake_suite(const std::filesystem::path& root, const std::string& name = "s");

/// True when python3 can import matplotlib (the chart script needs it).
bool have_matplotlib();

}  // namespace execbench::test_support
