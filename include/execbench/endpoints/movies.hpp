#pragma once

#include "execbench/core/result.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::endpoints {

/// Largest number of movies accepted in one POST.
inline constexpr std::size_t max_movies_per_post = 1000;

/// Most directors, writers, characters and awards accepted per movie; with the body limit they bound memory.
inline constexpr std::size_t max_directors_per_movie = 20;
inline constexpr std::size_t max_writers_per_movie = 50;
inline constexpr std::size_t max_characters_per_movie = 200;
inline constexpr std::size_t max_awards_per_movie = 100;
/// Deepest nesting of arrays and objects in a body (a movie batch needs 5); checked before the DOM is built.
inline constexpr std::size_t max_body_depth = 8;

/// Validates a POST /movies body: one movie object or a non-empty array of at most `max_movies_per_post`.
///
/// Returns the batch as a JSON array of normalised movies (any client-sent "id" dropped). The error names the
/// offending field with its path, e.g. `movies[2].directors[0].lastName: required, a non-empty string`
/// (`movie.title: ...` when the body is a single object).
/// Field names follow the Java study: id, title, releaseYear, genre, rating, characters[{actor, name}],
/// directors[person], writers[person], awards[{name, year}]; person = {firstName, lastName, birthday}.
///
/// Rules: title a non-empty string of at most 500 bytes; releaseYear an integer in 1870..2100; genre an upper-case
/// word [A-Z_]+ of at most 50 bytes; rating absent, null or a number in 0..10; directors a non-empty array;
/// writers, characters and awards absent, null or arrays. A person needs a non-empty lastName; firstName may be
/// absent, null or empty (mononymous people), and birthday is absent, null or a real date
/// YYYY-MM-DD. A character is {actor: person, name: non-empty string}; an award {name: non-empty string,
/// year: integer 1870..2100}. Names are at most 200 bytes.
///
/// Unknown fields are rejected (`movies[0].ratng: unknown field`) rather than dropped, so a typo cannot silently
/// lose data; the only exception is a movie's "id", which the server assigns. Normalised movies carry every field:
/// rating null when absent, missing arrays as [], a person's firstName "" and birthday null when absent.
result<nlohmann::json> parse_movies(std::string_view body);

/// Appends a normalised movie (an element of `parse_movies`' result) as compact JSON in the Java study's field
/// order, without an id: `{"title":...,"releaseYear":...,...}`.
void append_movie_json(const nlohmann::json& movie, std::string& out);

/// `text` with ASCII letters lower-cased: the key directors are stored and looked up by.
std::string ascii_lower(std::string_view text);

/// The distinct lower-cased last names of a normalised movie's directors, in order.
std::vector<std::string> director_keys(const nlohmann::json& movie);

/// Appends a stored movie as the API returns it: `{"id":N,` followed by `doc` (from `append_movie_json`) minus its
/// opening brace.
void append_with_id(std::int64_t id, std::string_view doc, std::string& out);

/// The movies data set shipped with execbench (scenarios/data/movies.json), embedded at build time.
std::string_view movies_seed_json() noexcept;

}  // namespace execbench::endpoints
