#pragma once

#include "execbench/core/result.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

namespace execbench::endpoints {

/// Largest number of movies accepted in one POST.
inline constexpr std::size_t max_movies_per_post = 1000;

/// Validates a POST /movies body: one movie object or a non-empty array of at most `max_movies_per_post`.
///
/// Returns the batch as a JSON array of normalised movies (any client-sent "id" dropped). The error names the
/// offending field with its path, e.g. `movies[2].directors[0].lastName: required, a non-empty string`.
/// Field names follow the Java study: id, title, releaseYear, genre, rating, characters[{actor, name}],
/// directors[person], writers[person], awards[{name, year}]; person = {firstName, lastName, birthday}.
result<nlohmann::json> parse_movies(std::string_view body);

/// The movies data set shipped with execbench (scenarios/data/movies.json), embedded at build time.
std::string_view movies_seed_json() noexcept;

}  // namespace execbench::endpoints
