#pragma once

#include "execbench/core/result.hpp"
#include "execbench/endpoints/movie_cache.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace execbench::endpoints {

/// Where and how movies are kept.
struct movie_store_options {
    std::string path;                          ///< SQLite file (WAL); empty keeps the database in memory
    bool read_only = false;                    ///< validate and echo POSTs without storing them
    bool sync_commits = false;                 ///< a file: every commit waits for the disk (synchronous=FULL)
    std::size_t cache = default_movies_cache;  ///< directors whose answers are cached; 0 turns the cache off
};

/// Movies in SQLite behind an in-process cache of per-director answers that writes invalidate.
///
/// Thread-safe. Construction opens (and when empty, seeds) the database and throws std::runtime_error on failure;
/// that is start-up. After that, failures come back as results.
class movie_store {
public:
    explicit movie_store(const movie_store_options& options);
    ~movie_store();
    movie_store(const movie_store&) = delete;
    movie_store& operator=(const movie_store&) = delete;

    /// The JSON array (text) of the movies with a director of that last name (case-insensitive for ASCII
    /// letters); "[]" if none. Answers are cached (`movie_store_options::cache` names at most).
    result<std::shared_ptr<const std::string>> by_director(std::string_view last_name);

    /// Stores a batch from `parse_movies` atomically and returns it as JSON text with the assigned ids.
    /// Each movie is `{"id":N,...}` with the id first. In read-only mode nothing is stored and ids come from an
    /// in-memory counter that starts after the highest stored id.
    result<std::string> add(const nlohmann::json& movies);

    /// Number of stored movies.
    result<std::size_t> count();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace execbench::endpoints
