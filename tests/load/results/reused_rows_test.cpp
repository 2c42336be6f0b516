// `<suite>-reused.jsonl`: what bench-suite --reuse-from notes per copied piece reads back as written.
#include "execbench/load/results/reused_rows.hpp"
#include "execbench/load/results/paths.hpp"

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace execbench::load;

TEST_CASE("reused rows read back as written, and a line cut short is skipped", "[load][results][reuse]")
{
    execbench::test_support::temp_dir dir;
    auto file = reused_path(dir.path, "peers");
    CHECK(file.filename() == "peers-reused.jsonl");
    auto none = read_reused_rows(file);
    REQUIRE(none);
    CHECK(none->empty());
    reused_row a{"hot-path-30k", "loop", "run", "r1", "hot-path", "full"};
    reused_row b{"capacity-epoch-millis", "coro", "capacity", "c2", "capacity", ""};
    {
        std::ofstream out(file);
        out << to_json(a) << "\n" << to_json(b) << "\n" << R"({"scenario":"cut)";
    }
    auto rows = read_reused_rows(file);
    REQUIRE(rows);
    REQUIRE(rows->size() == 2);
    CHECK((*rows)[0].arm == "loop");
    CHECK((*rows)[0].study == "full");
    CHECK((*rows)[1].kind == "capacity");
    CHECK((*rows)[1].from == "capacity");
    CHECK((*rows)[1].run_id == "c2");
}
