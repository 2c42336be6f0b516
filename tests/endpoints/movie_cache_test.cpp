#include "execbench/endpoints/movie_cache.hpp"

#include <catch2/catch.hpp>

using execbench::endpoints::director_cache;

namespace {

std::shared_ptr<const std::string> answer(const char* text)
{
    return std::make_shared<const std::string>(text);
}

}  // namespace

TEST_CASE("director_cache keeps an answer offered with the current generation", "[endpoints]")
{
    director_cache cache(10);
    cache.offer("kubrick", answer("[1]"), cache.generation());
    REQUIRE(cache.find("kubrick") != nullptr);
    CHECK(*cache.find("kubrick") == "[1]");
    CHECK(cache.find("lynch") == nullptr);
}

TEST_CASE("director_cache drops an answer computed before a write that committed meanwhile", "[endpoints]")
{
    director_cache cache(10);
    const auto before = cache.generation();
    cache.invalidate({"kubrick"});
    cache.offer("kubrick", answer("[stale]"), before);
    CHECK(cache.find("kubrick") == nullptr);
}

TEST_CASE("director_cache forgets the directors a write names", "[endpoints]")
{
    director_cache cache(10);
    cache.offer("kubrick", answer("[1]"), cache.generation());
    cache.offer("lynch", answer("[2]"), cache.generation());
    cache.invalidate({"kubrick"});
    CHECK(cache.find("kubrick") == nullptr);
    CHECK(cache.find("lynch") != nullptr);
}

TEST_CASE("director_cache of capacity 0 caches nothing", "[endpoints]")
{
    director_cache cache(0);
    cache.offer("kubrick", answer("[1]"), cache.generation());
    CHECK(cache.find("kubrick") == nullptr);
}

TEST_CASE("director_cache empties itself rather than grow past its capacity", "[endpoints]")
{
    director_cache cache(2);
    cache.offer("a", answer("[]"), cache.generation());
    cache.offer("b", answer("[]"), cache.generation());
    cache.offer("c", answer("[]"), cache.generation());
    CHECK(cache.find("a") == nullptr);
    CHECK(cache.find("c") != nullptr);
}
