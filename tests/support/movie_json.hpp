#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace execbench::test_support {

/// A valid movie for POST /movies, directed by `director` (last name), as JSON text.
inline std::string small_movie(const std::string& director)
{
    return nlohmann::json{{"title", "T"},
                          {"releaseYear", 2001},
                          {"genre", "DRAMA"},
                          {"rating", 5},
                          {"directors", nlohmann::json::array({{{"firstName", "A"}, {"lastName", director}}})}}
        .dump();
}

}  // namespace execbench::test_support
