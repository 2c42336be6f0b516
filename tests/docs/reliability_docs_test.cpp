// docs/reliability.md stays true: every test its tables name exists, and every reliability test is in a table.
// (The hostile-input rows are generated from their case table; hostile_input_test.cpp checks those.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Names of TEST_CASE and TEMPLATE_TEST_CASE declared in `source`.
std::set<std::string> test_names(const std::string& source)
{
    std::set<std::string> names;
    static const std::regex declaration(R"re((?:TEMPLATE_)?TEST_CASE\(\s*"((?:[^"\\]|\\.)*)")re");
    for (std::sregex_iterator it(source.begin(), source.end(), declaration), end; it != end; ++it)
        names.insert((*it)[1].str());
    return names;
}

// The backticked last cells of the rows of every table in `markdown` whose last column is headed "test".
std::set<std::string> documented_tests(const std::string& markdown)
{
    std::set<std::string> names;
    std::istringstream lines(markdown);
    std::string line;
    static const std::regex test_header(R"re(\|\s*test\s*\|\s*$)re");
    static const std::regex last_cell(R"re(\|\s*`([^`]+)`\s*\|\s*$)re");
    bool in_table = false;
    bool names_tests = false;
    while (std::getline(lines, line)) {
        if (line.rfind('|', 0) != 0) {
            in_table = false;
            continue;
        }
        if (!in_table) {
            in_table = true;
            names_tests = std::regex_search(line, test_header);
            continue;
        }
        std::smatch m;
        if (names_tests && std::regex_search(line, m, last_cell))
            names.insert(m[1].str());
    }
    return names;
}

}  // namespace

TEST_CASE("docs/reliability.md names only tests that exist, and every reliability test is named there", "[docs]")
{
    const std::filesystem::path root = EXECBENCH_SOURCE_DIR;
    const auto doc = read_file(root / "docs/reliability.md");
    REQUIRE_FALSE(doc.empty());
    const auto documented = documented_tests(doc);
    REQUIRE(documented.size() > 10);

    std::set<std::string> existing;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "tests"))
        if (entry.path().extension() == ".cpp")
            for (auto& name : test_names(read_file(entry.path())))
                existing.insert(name);
    const auto ci_script = read_file(root / ".ci/test");
    for (const auto& name : documented) {
        INFO("docs/reliability.md names a test that does not exist: " << name);
        if (name.rfind(".ci/test ", 0) == 0) {
            // A CI step: the script must have that section.
            CHECK(ci_script.find("== " + name.substr(9) + " ") != std::string::npos);
        } else if (name.rfind("tests/", 0) == 0) {
            // A file that is a test of its own (the fuzz target).
            CHECK(std::filesystem::exists(root / name.substr(0, name.find(' '))));
        } else {
            CHECK(existing.count(name) == 1);
        }
    }

    // The suites written for reliability must all be accounted for in the document.
    for (const char* file :
         {"tests/models/hostile_input_test.cpp", "tests/models/limits_test.cpp", "tests/server/lifecycle_test.cpp",
          "tests/server/security_test.cpp", "tests/load/engine/faults_test.cpp", "tests/models/http_semantics_test.cpp"}) {
        for (const auto& name : test_names(read_file(root / file))) {
            if (name.rfind("docs/", 0) == 0)
                continue;
            INFO(file << " has a test docs/reliability.md does not list: " << name);
            CHECK(documented.count(name) == 1);
        }
    }
}
