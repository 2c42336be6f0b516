#include "execbench/load/scenario/scenario_catalogue.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace execbench::load;

TEST_CASE("the shipped scenarios parse and include one per shape", "[load]")
{
    auto dir = std::filesystem::path(EXECBENCH_SOURCE_DIR) / "scenarios";
    auto all = list_scenarios(dir);
    REQUIRE(all.size() >= 5);
    std::set<shape> shapes;
    bool background = false;
    for (const auto& e : all) {
        INFO(e.name);
        CHECK(e.problem.empty());
        auto s = load_named_scenario(dir, e.name);
        REQUIRE(s.ok());
        shapes.insert(s->load.kind);
        background = background || s->background.has_value();
    }
    CHECK(shapes.size() == 4);
    CHECK(background);
    auto io = load_named_scenario(dir, "io-600");
    REQUIRE(io.ok());
    CHECK(io->load.requests == 600);
    CHECK(io->trials == 5);
    CHECK(io->mix.front().path == "/io?delayInMillis=300");
    CHECK(std::find(io->suites.begin(), io->suites.end(), "reactive") != io->suites.end());
    auto missing = load_named_scenario(dir, "no-such-scenario");
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.err().message, Catch::Contains("not found") && Catch::Contains("--list-scenarios"));
    auto typo = load_named_scenario(dir, "io-60");
    REQUIRE_FALSE(typo.ok());
    CHECK_THAT(typo.err().message, Catch::Contains("did you mean io-600?"));
}

TEST_CASE("natural order and typo suggestions", "[load][cli]")
{
    CHECK(natural_less("1k-vus", "5k-vus"));
    CHECK(natural_less("5k-vus", "10k-vus"));
    CHECK(natural_less("10k-vus", "20k-vus"));
    CHECK_FALSE(natural_less("20k", "10k"));
    CHECK(natural_less("a", "ab"));
    CHECK(closest_match("io-60", {"cpu-60", "io-600", "stream-50"}) == "io-600");
    CHECK(closest_match("reactiv", {"reactive", "default"}) == "reactive");
    CHECK(closest_match("completely-else", {"io-600"}) == std::nullopt);
}
