#include "execbench/endpoints/movies.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

using execbench::endpoints::append_movie_json;
using execbench::endpoints::max_movies_per_post;
using execbench::endpoints::movies_seed_json;
using execbench::endpoints::parse_movies;
using json = nlohmann::json;

namespace {

json person(const char* first, const char* last, const char* birthday)
{
    return json{{"firstName", first}, {"lastName", last}, {"birthday", birthday}};
}

json valid_movie()
{
    return json{
        {"title", "Annie Hall"},
        {"releaseYear", 1977},
        {"genre", "COMEDY"},
        {"rating", 8.0},
        {"characters", json::array({json{{"actor", person("Diane", "Keaton", "1946-01-05")}, {"name", "Annie"}}})},
        {"directors", json::array({person("Woody", "Allen", "1935-12-01")})},
        {"writers", json::array({person("Marshall", "Brickman", "1939-08-25")})},
        {"awards", json::array({json{{"name", "Academy Award for Best Picture"}, {"year", 1978}}})},
    };
}

std::string error_of_text(std::string_view body)
{
    auto parsed = parse_movies(body);
    INFO(body.substr(0, 300));
    REQUIRE_FALSE(parsed.ok());
    return parsed.err().message;
}

std::string error_of(const json& body)
{
    return error_of_text(body.dump());
}

// The error for a one-movie array where `change` was applied to a valid movie.
template <class Change>
std::string movie_error(Change change)
{
    auto movie = valid_movie();
    change(movie);
    return error_of(json::array({movie}));
}

json parse_ok(const json& body)
{
    auto parsed = parse_movies(body.dump());
    INFO((parsed.ok() ? std::string() : parsed.err().message));
    REQUIRE(parsed.ok());
    return *parsed;
}

}  // namespace

TEST_CASE("parse_movies accepts an array and a single object", "[endpoints]")
{
    const auto batch = parse_ok(json::array({valid_movie(), valid_movie()}));
    REQUIRE(batch.is_array());
    CHECK(batch.size() == 2);
    const auto single = parse_ok(valid_movie());
    REQUIRE(single.size() == 1);
    CHECK(single[0] == valid_movie());
}

TEST_CASE("parse_movies drops a client-sent id", "[endpoints]")
{
    auto movie = valid_movie();
    movie["id"] = 99;
    const auto batch = parse_ok(movie);
    CHECK_FALSE(batch[0].contains("id"));
}

TEST_CASE("parse_movies normalises optional fields", "[endpoints]")
{
    const json movie = {{"title", "M"},
                        {"releaseYear", 1931},
                        {"genre", "THRILLER"},
                        {"writers", nullptr},
                        {"directors", json::array({json{{"lastName", "Lang"}}})}};
    const auto out = parse_ok(movie)[0];
    CHECK(out["rating"].is_null());
    CHECK(out["characters"] == json::array());
    CHECK(out["writers"] == json::array());
    CHECK(out["awards"] == json::array());
    CHECK(out["directors"][0] == json{{"firstName", ""}, {"lastName", "Lang"}, {"birthday", nullptr}});
}

TEST_CASE("parse_movies accepts the boundaries of every range", "[endpoints]")
{
    auto movie = valid_movie();
    movie["title"] = std::string(500, 't');
    movie["releaseYear"] = 1870;
    movie["genre"] = "SCIENCE_FICTION";
    movie["rating"] = 0;
    movie["directors"][0]["firstName"] = "";
    movie["directors"][0]["birthday"] = "2000-02-29";
    movie["writers"][0]["lastName"] = std::string(200, 'w');
    CHECK(parse_ok(movie).size() == 1);
    movie["releaseYear"] = 2100;
    movie["rating"] = 10;
    movie["awards"][0]["year"] = 2100;
    CHECK(parse_ok(movie).size() == 1);
    CHECK(parse_ok(json::array({movie, movie, movie})).size() == 3);
}

TEST_CASE("parse_movies rejects a body that is not a batch of movies", "[endpoints]")
{
    CHECK(error_of_text("{").rfind("body: not valid JSON: ", 0) == 0);
    CHECK(error_of_text("").rfind("body: not valid JSON: ", 0) == 0);
    CHECK(error_of_text("[1e400]").rfind("body: not valid JSON: ", 0) == 0);
    CHECK(error_of_text("[\"\xC3\"]").rfind("body: not valid JSON: ", 0) == 0);
    CHECK(error_of_text("42") == "body: must be a movie object or an array of movies");
    CHECK(error_of_text("\"movie\"") == "body: must be a movie object or an array of movies");
    CHECK(error_of_text("[]") == "body: must not be an empty array");
    CHECK(error_of_text("[[[[[[[[[[]]]]]]]]]]") == "body: nested deeper than 8 levels");
    CHECK(error_of_text("[1]") == "movies[0]: must be a movie object");
}

TEST_CASE("parse_movies says where a body stops being JSON, not what the JSON library calls it", "[endpoints]")
{
    for (std::string body : {"{", "", "[1e400]", "{\"title\" 1}", "[1,\n 2,\n x]"}) {
        INFO(body);
        CHECK(error_of_text(body).find("json.exception") == std::string::npos);
        CHECK(error_of_text(body).find("parse_error") == std::string::npos);
    }
    CHECK(error_of_text("") == "body: not valid JSON: the body is empty");
    CHECK(error_of_text("{\"title\" 1}") == "body: not valid JSON: at line 1, column 10 (byte 10), after '{\"title\" 1'");
    CHECK_THAT(error_of_text("[1,\n 2,\n x]"), Catch::StartsWith("body: not valid JSON: at line 3, column 2"));
    CHECK(error_of_text("[1e400]") == "body: not valid JSON: a number out of the range of a double");
}

TEST_CASE("parse_movies keeps parser messages short", "[endpoints]")
{
    const std::string body = "[\"" + std::string(100000, 'x') + "\x01\"]";
    const auto message = error_of_text(body);
    CHECK(message.rfind("body: not valid JSON: ", 0) == 0);
    CHECK(message.size() < 400);
}

TEST_CASE("parse_movies ignores brackets inside strings when measuring depth", "[endpoints]")
{
    auto movie = valid_movie();
    movie["title"] = "[[[[[[[[[[{{{{{{{{{{\\\"";
    CHECK(parse_ok(movie).size() == 1);
}

TEST_CASE("parse_movies limits the batch size", "[endpoints]")
{
    json batch = json::array();
    for (std::size_t i = 0; i < max_movies_per_post; ++i)
        batch.push_back(valid_movie());
    CHECK(parse_ok(batch).size() == max_movies_per_post);
    batch.push_back(valid_movie());
    CHECK(error_of(batch) == "body: at most 1000 movies per request");
}

TEST_CASE("parse_movies names the path of the first bad field", "[endpoints]")
{
    auto bad_second = json::array({valid_movie(), valid_movie()});
    bad_second[1]["directors"][0]["lastName"] = "";
    CHECK(error_of(bad_second) == "movies[1].directors[0].lastName: required, a non-empty string of at most 200 bytes");
    auto single = valid_movie();
    single.erase("title");
    CHECK(error_of(single) == "movie.title: required, a non-empty string of at most 500 bytes");
}

TEST_CASE("parse_movies rejects unknown fields at every level", "[endpoints]")
{
    CHECK(movie_error([](json& m) { m["ratng"] = 8; }) == "movies[0].ratng: unknown field");
    CHECK(movie_error([](json& m) { m["directors"][0]["age"] = 3; }) == "movies[0].directors[0].age: unknown field");
    CHECK(movie_error([](json& m) { m["characters"][0]["role"] = "x"; }) ==
          "movies[0].characters[0].role: unknown field");
    CHECK(movie_error([](json& m) { m["awards"][0]["category"] = "x"; }) ==
          "movies[0].awards[0].category: unknown field");
    CHECK(movie_error([](json& m) { m["directors"][0]["id"] = 1; }) == "movies[0].directors[0].id: unknown field");
    const auto long_key = movie_error([](json& m) { m[std::string(5000, 'k')] = 1; });
    CHECK(long_key.size() < 200);
}

TEST_CASE("parse_movies validates title", "[endpoints]")
{
    const std::string message = "movies[0].title: required, a non-empty string of at most 500 bytes";
    CHECK(movie_error([](json& m) { m.erase("title"); }) == message);
    CHECK(movie_error([](json& m) { m["title"] = nullptr; }) == message);
    CHECK(movie_error([](json& m) { m["title"] = ""; }) == message);
    CHECK(movie_error([](json& m) { m["title"] = 12; }) == message);
    CHECK(movie_error([](json& m) { m["title"] = std::string(501, 't'); }) == message);
}

TEST_CASE("parse_movies validates releaseYear", "[endpoints]")
{
    const std::string message = "movies[0].releaseYear: required, an integer in 1870..2100";
    CHECK(movie_error([](json& m) { m.erase("releaseYear"); }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = 1869; }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = 2101; }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = -1977; }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = 1977.0; }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = "1977"; }) == message);
    CHECK(movie_error([](json& m) { m["releaseYear"] = UINT64_MAX; }) == message);
}

TEST_CASE("parse_movies validates genre", "[endpoints]")
{
    const std::string message = "movies[0].genre: required, an upper-case word [A-Z_]+ of at most 50 bytes";
    CHECK(movie_error([](json& m) { m.erase("genre"); }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = ""; }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = "drama"; }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = "SCIENCE-FICTION"; }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = "FILM NOIR"; }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = std::string(51, 'A'); }) == message);
    CHECK(movie_error([](json& m) { m["genre"] = json::array({"DRAMA"}); }) == message);
}

TEST_CASE("parse_movies validates rating", "[endpoints]")
{
    const std::string message = "movies[0].rating: a number in 0..10";
    CHECK(movie_error([](json& m) { m["rating"] = -0.1; }) == message);
    CHECK(movie_error([](json& m) { m["rating"] = 10.01; }) == message);
    CHECK(movie_error([](json& m) { m["rating"] = "8"; }) == message);
    CHECK(movie_error([](json& m) { m["rating"] = true; }) == message);
    auto unrated = valid_movie();
    unrated.erase("rating");
    CHECK(parse_ok(unrated)[0]["rating"].is_null());
}

TEST_CASE("parse_movies validates the lists", "[endpoints]")
{
    const auto persons = [](std::size_t n) {
        json list = json::array();
        for (std::size_t i = 0; i < n; ++i)
            list.push_back(person("A", "B", "2000-01-01"));
        return list;
    };
    const std::string directors = "movies[0].directors: required, a non-empty array of at most 20 persons";
    CHECK(movie_error([](json& m) { m.erase("directors"); }) == directors);
    CHECK(movie_error([](json& m) { m["directors"] = nullptr; }) == directors);
    CHECK(movie_error([](json& m) { m["directors"] = json::array(); }) == directors);
    CHECK(movie_error([](json& m) { m["directors"] = person("A", "B", "2000-01-01"); }) == directors);
    CHECK(movie_error([&](json& m) { m["directors"] = persons(21); }) == directors);

    const std::string writers = "movies[0].writers: an array of at most 50 persons";
    CHECK(movie_error([](json& m) { m["writers"] = "Brickman"; }) == writers);
    CHECK(movie_error([&](json& m) { m["writers"] = persons(51); }) == writers);

    CHECK(movie_error([](json& m) { m["characters"] = json::object(); }) ==
          "movies[0].characters: an array of at most 200 characters");
    CHECK(movie_error([](json& m) {
              m["characters"] = json::array();
              for (int i = 0; i < 201; ++i)
                  m["characters"].push_back(json{});
          }) == "movies[0].characters: an array of at most 200 characters");
    CHECK(movie_error([](json& m) {
              m["awards"] = json::array();
              for (int i = 0; i < 101; ++i)
                  m["awards"].push_back(json{{"name", "A"}, {"year", 2000}});
          }) == "movies[0].awards: an array of at most 100 awards");
    CHECK(movie_error([](json& m) { m["awards"] = 1; }) == "movies[0].awards: an array of at most 100 awards");

    auto full = valid_movie();
    full["directors"] = persons(20);
    full["writers"] = persons(50);
    CHECK(parse_ok(full)[0]["writers"].size() == 50);
}

TEST_CASE("parse_movies validates persons", "[endpoints]")
{
    CHECK(movie_error([](json& m) { m["directors"][0] = "Woody Allen"; }) ==
          "movies[0].directors[0]: must be a person object {firstName, lastName, birthday}");
    const std::string first = "movies[0].directors[0].firstName: a string of at most 200 bytes";
    CHECK(movie_error([](json& m) { m["directors"][0]["firstName"] = 1; }) == first);
    CHECK(movie_error([](json& m) { m["directors"][0]["firstName"] = std::string(201, 'f'); }) == first);
    const std::string last = "movies[0].writers[0].lastName: required, a non-empty string of at most 200 bytes";
    CHECK(movie_error([](json& m) { m["writers"][0].erase("lastName"); }) == last);
    CHECK(movie_error([](json& m) { m["writers"][0]["lastName"] = ""; }) == last);
    CHECK(movie_error([](json& m) { m["writers"][0]["lastName"] = json::array(); }) == last);
    CHECK(movie_error([](json& m) { m["writers"][0]["lastName"] = std::string(201, 'l'); }) == last);
    const std::string birthday = "movies[0].directors[0].birthday: null or a real date YYYY-MM-DD";
    for (const char* date : {"1999-02-29", "1900-02-29", "2001-04-31", "2001-13-01", "2001-00-10", "2001-01-00",
                             "0000-01-01", "1999-2-3", "1999-02-3x", "19990203", "yesterday", ""}) {
        INFO(date);
        CHECK(movie_error([&](json& m) { m["directors"][0]["birthday"] = date; }) == birthday);
    }
    CHECK(movie_error([](json& m) { m["directors"][0]["birthday"] = 19990203; }) == birthday);
    auto unborn = valid_movie();
    unborn["directors"][0]["birthday"] = nullptr;
    unborn["directors"][0].erase("firstName");
    const auto out = parse_ok(unborn)[0]["directors"][0];
    CHECK(out["birthday"].is_null());
    CHECK(out["firstName"] == "");
}

TEST_CASE("parse_movies validates characters", "[endpoints]")
{
    CHECK(movie_error([](json& m) { m["characters"][0] = 1; }) ==
          "movies[0].characters[0]: must be a character object {actor, name}");
    CHECK(movie_error([](json& m) { m["characters"][0].erase("actor"); }) ==
          "movies[0].characters[0].actor: required, a person object {firstName, lastName, birthday}");
    CHECK(movie_error([](json& m) { m["characters"][0]["actor"] = "Diane Keaton"; }) ==
          "movies[0].characters[0].actor: must be a person object {firstName, lastName, birthday}");
    CHECK(movie_error([](json& m) { m["characters"][0]["actor"].erase("lastName"); }) ==
          "movies[0].characters[0].actor.lastName: required, a non-empty string of at most 200 bytes");
    const std::string name = "movies[0].characters[0].name: required, a non-empty string of at most 200 bytes";
    CHECK(movie_error([](json& m) { m["characters"][0].erase("name"); }) == name);
    CHECK(movie_error([](json& m) { m["characters"][0]["name"] = ""; }) == name);
}

TEST_CASE("parse_movies validates awards", "[endpoints]")
{
    CHECK(movie_error([](json& m) { m["awards"][0] = "Oscar"; }) ==
          "movies[0].awards[0]: must be an award object {name, year}");
    const std::string name = "movies[0].awards[0].name: required, a non-empty string of at most 200 bytes";
    CHECK(movie_error([](json& m) { m["awards"][0].erase("name"); }) == name);
    CHECK(movie_error([](json& m) { m["awards"][0]["name"] = 5; }) == name);
    const std::string year = "movies[0].awards[0].year: required, an integer in 1870..2100";
    CHECK(movie_error([](json& m) { m["awards"][0].erase("year"); }) == year);
    CHECK(movie_error([](json& m) { m["awards"][0]["year"] = "1978"; }) == year);
    CHECK(movie_error([](json& m) { m["awards"][0]["year"] = 1869; }) == year);
}

TEST_CASE("parse_movies rejects a batch with one invalid movie as a whole", "[endpoints]")
{
    auto batch = json::array({valid_movie(), valid_movie(), valid_movie()});
    batch[2]["genre"] = "comedy";
    CHECK(error_of(batch).rfind("movies[2].genre: ", 0) == 0);
}

TEST_CASE("append_movie_json writes the Java study's field order", "[endpoints]")
{
    const json movie = {
        {"title", "M"},
        {"releaseYear", 1931},
        {"genre", "THRILLER"},
        {"rating", 8.3},
        {"directors", json::array({json{{"firstName", "Fritz"}, {"lastName", "Lang"}}})},
        {"characters",
         json::array(
             {json{{"name", "Hans Beckert"},
                   {"actor", json{{"firstName", "Peter"}, {"lastName", "Lorre"}, {"birthday", "1904-06-26"}}}}})},
        {"awards", json::array({json{{"year", 2000}, {"name", "A \"quoted\" award"}}})}};
    std::string out;
    append_movie_json(parse_ok(movie)[0], out);
    CHECK(out == R"({"title":"M","releaseYear":1931,"genre":"THRILLER","rating":8.3,)"
                 R"("characters":[{"actor":{"firstName":"Peter","lastName":"Lorre","birthday":"1904-06-26"},)"
                 R"("name":"Hans Beckert"}],"directors":[{"firstName":"Fritz","lastName":"Lang","birthday":null}],)"
                 R"("writers":[],"awards":[{"name":"A \"quoted\" award","year":2000}]})");
    CHECK(json::parse(out) == parse_ok(movie)[0]);
}

TEST_CASE("the embedded data set is the shipped file and passes validation", "[endpoints]")
{
    std::ifstream file(EXECBENCH_SOURCE_DIR "/scenarios/data/movies.json", std::ios::binary);
    REQUIRE(file);
    std::ostringstream text;
    text << file.rdbuf();
    CHECK(text.str() == movies_seed_json());

    const auto seed = parse_movies(movies_seed_json());
    INFO((seed.ok() ? std::string() : seed.err().message));
    REQUIRE(seed.ok());
    CHECK(seed->size() >= 8);
    for (const auto& movie : *seed) {
        INFO(movie["title"].get<std::string>());
        CHECK(movie["characters"].size() >= 2);
        CHECK(movie["characters"].size() <= 3);
        CHECK_FALSE(movie["rating"].is_null());
        CHECK_FALSE(movie["writers"].empty());
        CHECK_FALSE(movie["awards"].empty());
        for (const auto& character : movie["characters"])
            CHECK_FALSE(character["actor"]["birthday"].is_null());
    }
}
