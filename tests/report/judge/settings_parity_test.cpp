#include "execbench/report/judge/settings_parity.hpp"

#include <catch2/catch.hpp>

using namespace execbench::report;

namespace {

execbench::load::run_context context_of(const std::string& arm, const std::string& health)
{
    return *execbench::load::parse_context(R"({"run_id":"r-)" + arm + R"(","scenario":{"name":"io"},"arm":{"name":")" +
                                           arm + R"(","model":"loop","options":{}},"server":{"health":)" + health +
                                           "}}");
}

}  // namespace

TEST_CASE("settings parity: the settings the arms report differently, a missing one included", "[report][parity]")
{
    suite_data s;
    s.contexts = {context_of("a", R"({"model":"loop","threads":2,"queue":100,"inFlight":3})"),
                  context_of("b", R"({"model":"pool","threads":200,"queue":100,"inFlight":9,"stack":64})")};
    auto p = settings_parity_of(s, "io");
    REQUIRE(p.by_arm.size() == 2);
    CHECK(p.by_arm.at("b").at("threads") == "200");
    CHECK_FALSE(p.by_arm.at("a").count("model"));  // the model differs by design, in-flight by the moment read
    CHECK(p.differing == std::vector<std::string>{"stack", "threads"});

    CHECK(settings_parity_of(s, "other").by_arm.empty());
    CHECK(contexts_with_arms(s).size() == 2);
}
