#include "execbench/core/build_info.hpp"
#include "execbench/core/model_names.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

TEST_CASE("the build names its sources by digest, and each model's implementation by one of its own", "[core]")
{
    const std::regex sixteen_hex("[0-9a-f]{16}");
    CHECK(std::regex_match(std::string(execbench::source_digest()), sixteen_hex));
    std::set<std::string> identities;
    for (auto model : execbench::model_names) {
        const std::string identity(execbench::model_implementation(model));
        INFO(model << ": " << identity);
        CHECK(identity.rfind(std::string(model) + "@", 0) == 0);
        CHECK(std::regex_match(identity.substr(model.size() + 1), sixteen_hex));
        identities.insert(identity.substr(model.size() + 1));
    }
    // Each model is built from files of its own: no two share an identity.
    CHECK(identities.size() == execbench::model_names.size());
    CHECK(execbench::model_implementation("nginx").empty());
}

TEST_CASE("a UTC timestamp reads back as the time it names, a run id's suffix after it", "[core]")
{
    const auto t = execbench::parse_utc_timestamp("2026-12-07T09:09:27Z-b18a");
    REQUIRE(t);
    CHECK(*t == 1796634567);
    CHECK(execbench::parse_utc_timestamp(execbench::utc_timestamp()));
    CHECK_FALSE(execbench::parse_utc_timestamp("r1"));
    CHECK_FALSE(execbench::parse_utc_timestamp("2026-12-07 09:09:27"));
}
