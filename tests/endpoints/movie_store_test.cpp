#include "execbench/endpoints/movie_store.hpp"

#include "execbench/endpoints/movies.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>

using execbench::endpoints::movie_store;
using execbench::endpoints::movie_store_options;
using execbench::endpoints::parse_movies;
using json = nlohmann::json;

namespace {

std::size_t seed_count()
{
    return parse_movies(execbench::endpoints::movies_seed_json())->size();
}

json by_director(movie_store& store, std::string_view name)
{
    auto answer = store.by_director(name);
    REQUIRE(answer.ok());
    return json::parse(**answer);
}

json new_movie(const char* title, const char* director_last_name)
{
    const auto body = json{{"title", title},
                           {"releaseYear", 1999},
                           {"genre", "DRAMA"},
                           {"directors", json::array({json{{"firstName", "Test"}, {"lastName", director_last_name}}})}};
    auto parsed = parse_movies(body.dump());
    REQUIRE(parsed.ok());
    return *parsed;
}

// A directory under the system temp dir, removed with everything in it when the test ends.
class temp_dir {
public:
    temp_dir()
    {
        std::random_device random;
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path_ = std::filesystem::temp_directory_path() /
                ("execbench-movie-store-" + std::to_string(stamp) + "-" + std::to_string(random()));
        std::filesystem::create_directories(path_);
    }
    ~temp_dir()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace

TEST_CASE("movie_store seeds an empty database with the data set", "[endpoints]")
{
    movie_store store({});
    REQUIRE(store.count().ok());
    CHECK(*store.count() == seed_count());
    CHECK(seed_count() >= 8);
}

TEST_CASE("movie_store answers each seeded director with 1 to 2 KB of JSON", "[endpoints]")
{
    movie_store store({});
    for (const char* name : {"Allen", "Hitchcock", "Kubrick"}) {
        auto answer = store.by_director(name);
        REQUIRE(answer.ok());
        const auto size = (*answer)->size();
        INFO(name << ": " << size << " bytes");
        CHECK(size >= 1024);
        CHECK(size <= 2048);
        const auto movies = json::parse(**answer);
        REQUIRE(movies.size() >= 3);
        // Every movie object opens with its id.
        std::size_t ids_first = 0;
        for (auto at = (*answer)->find("{\"id\":"); at != std::string::npos; at = (*answer)->find("{\"id\":", at + 1))
            ++ids_first;
        CHECK(ids_first == movies.size());
    }
}

TEST_CASE("movie_store looks directors up case-insensitively", "[endpoints]")
{
    movie_store store({});
    const auto canonical = store.by_director("Kubrick");
    REQUIRE(canonical.ok());
    for (const char* name : {"kubrick", "KUBRICK", "kUbRiCk"}) {
        auto answer = store.by_director(name);
        REQUIRE(answer.ok());
        CHECK(**answer == **canonical);
    }
    const auto movies = json::parse(**canonical);
    for (const auto& movie : movies)
        CHECK(movie["directors"][0]["lastName"] == "Kubrick");
}

TEST_CASE("movie_store answers [] for an unknown director", "[endpoints]")
{
    movie_store store({});
    auto answer = store.by_director("Nobody");
    REQUIRE(answer.ok());
    CHECK(**answer == "[]");
    auto empty = store.by_director("");
    REQUIRE(empty.ok());
    CHECK(**empty == "[]");
}

TEST_CASE("movie_store assigns increasing ids and puts the id first", "[endpoints]")
{
    movie_store store({});
    const auto first = store.add(new_movie("One", "Zed"));
    REQUIRE(first.ok());
    CHECK(first->rfind("[{\"id\":" + std::to_string(seed_count() + 1) + ",\"title\":\"One\"", 0) == 0);
    auto batch = new_movie("Two", "Zed");
    batch.push_back(new_movie("Three", "Other")[0]);
    const auto second = store.add(batch);
    REQUIRE(second.ok());
    const auto added = json::parse(*second);
    REQUIRE(added.size() == 2);
    CHECK(added[0]["id"] == seed_count() + 2);
    CHECK(added[1]["id"] == seed_count() + 3);
    CHECK(added[1]["title"] == "Three");
    CHECK(*store.count() == seed_count() + 3);
}

TEST_CASE("movie_store shows a new movie in the next GET of its director", "[endpoints]")
{
    movie_store store({});
    const auto before = by_director(store, "allen");  // now cached
    const auto cached = store.by_director("Allen");
    REQUIRE(cached.ok());
    CHECK(*cached == *store.by_director("ALLEN"));  // the same shared answer

    auto batch = new_movie("Sleeper", "Allen");
    REQUIRE(store.add(batch).ok());
    const auto after = by_director(store, "Allen");
    REQUIRE(after.size() == before.size() + 1);
    CHECK(after.back()["title"] == "Sleeper");
    CHECK(after.back()["id"] == seed_count() + 1);
    CHECK(by_director(store, "Kubrick").size() == 3);  // untouched directors keep their answer
}

TEST_CASE("movie_store lists a movie with two directors under each, once", "[endpoints]")
{
    movie_store store({});
    auto batch = new_movie("Fargo", "Coen");
    batch[0]["directors"].push_back(json{{"firstName", "Ethan"}, {"lastName", "Coen"}, {"birthday", nullptr}});
    batch[0]["directors"].push_back(json{{"firstName", "X"}, {"lastName", "Second"}, {"birthday", nullptr}});
    REQUIRE(store.add(batch).ok());
    CHECK(by_director(store, "coen").size() == 1);
    CHECK(by_director(store, "second").size() == 1);
}

TEST_CASE("movie_store rejects something that is not a batch", "[endpoints]")
{
    movie_store store({});
    const auto r = store.add(json::object());
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().message == "store: expected the array returned by parse_movies");
    CHECK(*store.count() == seed_count());
}

TEST_CASE("movie_store stores nothing of a batch that fails validation", "[endpoints]")
{
    movie_store store({});
    auto body = json::array({new_movie("Good", "Valid")[0], new_movie("Bad", "Valid")[0]});
    body[1]["releaseYear"] = 1800;
    const auto parsed = parse_movies(body.dump());
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.err().message == "movies[1].releaseYear: required, an integer in 1870..2100");
    CHECK(*store.count() == seed_count());
    CHECK(by_director(store, "Valid").empty());
}

TEST_CASE("movie_store in read-only mode echoes with ids but stores nothing", "[endpoints]")
{
    movie_store store({.path = {}, .read_only = true});
    CHECK(*store.count() == seed_count());
    const auto first = store.add(new_movie("Echo", "Allen"));
    REQUIRE(first.ok());
    const auto second = store.add(new_movie("Echo again", "Allen"));
    REQUIRE(second.ok());
    CHECK(json::parse(*first)[0]["id"] == seed_count() + 1);
    CHECK(json::parse(*second)[0]["id"] == seed_count() + 2);
    CHECK(second->rfind("[{\"id\":", 0) == 0);
    CHECK(*store.count() == seed_count());
    for (const auto& movie : by_director(store, "Allen"))
        CHECK(movie["title"] != "Echo");
}

TEST_CASE("movie_store keeps a file database across reopening", "[endpoints]")
{
    temp_dir dir;
    const auto path = (dir.path() / "movies.db").string();
    {
        movie_store store({.path = path, .read_only = false});
        CHECK(*store.count() == seed_count());
        REQUIRE(store.add(new_movie("Persisted", "Durable")).ok());
    }
    CHECK(std::filesystem::exists(path));
    {
        movie_store store({.path = path, .read_only = false});
        CHECK(*store.count() == seed_count() + 1);  // not seeded twice
        const auto movies = by_director(store, "durable");
        REQUIRE(movies.size() == 1);
        CHECK(movies[0]["title"] == "Persisted");
        CHECK(movies[0]["id"] == seed_count() + 1);
        const auto next = store.add(new_movie("Later", "Durable"));
        REQUIRE(next.ok());
        CHECK(json::parse(*next)[0]["id"] == seed_count() + 2);
    }
    {
        // Read-only mode on an existing file continues after the highest stored id.
        movie_store store({.path = path, .read_only = true});
        const auto echo = store.add(new_movie("Echo", "Durable"));
        REQUIRE(echo.ok());
        CHECK(json::parse(*echo)[0]["id"] == seed_count() + 3);
    }
}

TEST_CASE("movie_store fails at start-up on an unusable path", "[endpoints]")
{
    temp_dir dir;
    const auto path = (dir.path() / "missing-dir" / "movies.db").string();
    CHECK_THROWS_AS(movie_store({.path = path, .read_only = false}), std::runtime_error);
}

TEST_CASE("movie_store keeps answering while the cache is cycled by many names", "[endpoints]")
{
    movie_store store({});
    for (int i = 0; i < 10'050; ++i) {
        auto answer = store.by_director("random-" + std::to_string(i));
        REQUIRE(answer.ok());
    }
    CHECK(by_director(store, "Hitchcock").size() >= 3);
}
