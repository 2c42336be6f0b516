#include "execbench/core/file.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using execbench::log_tail;
using execbench::read_file;
using execbench::scratch_dir;

namespace {

void write(const std::filesystem::path& file, const std::string& text)
{
    std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("a scratch folder exists while its owner lives, and goes with its content", "[core]")
{
    std::filesystem::path kept;
    {
        scratch_dir dir("execbench-file-test");
        REQUIRE_FALSE(dir.path().empty());
        CHECK(std::filesystem::is_directory(dir.path()));
        CHECK(dir.path().filename().string().rfind("execbench-file-test-", 0) == 0);
        write(dir.path() / "a", "x");
        kept = dir.path();
        scratch_dir other("execbench-file-test");
        CHECK(other.path() != dir.path());
    }
    CHECK_FALSE(std::filesystem::exists(kept));
}

TEST_CASE("read_file gives the bytes as stored, and names a file it cannot read", "[core]")
{
    scratch_dir dir("execbench-file-test");
    write(dir.path() / "bytes", std::string("a\r\nb\0c", 6));
    auto r = read_file(dir.path() / "bytes");
    REQUIRE(r.ok());
    CHECK(*r == std::string("a\r\nb\0c", 6));
    auto missing = read_file(dir.path() / "missing");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.err().message == (dir.path() / "missing").string() + ": cannot be read");
}

TEST_CASE("a log's tail: the files in order, trailing line ends dropped, a long text cut at its start", "[core]")
{
    scratch_dir dir("execbench-file-test");
    write(dir.path() / "one", "first\n");
    write(dir.path() / "two", "second\r\n\n");
    CHECK(log_tail({dir.path() / "one", dir.path() / "two"}, 100) == "first\nsecond");
    CHECK(log_tail({dir.path() / "one", dir.path() / "missing", dir.path() / "two"}, 100) == "first\nsecond");
    CHECK(log_tail({dir.path() / "one", dir.path() / "two"}, 6) == "...second");
    CHECK(log_tail({dir.path() / "missing"}, 100).empty());
}
