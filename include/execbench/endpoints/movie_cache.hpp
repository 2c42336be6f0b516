#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace execbench::endpoints {

/// Default number of directors whose answers are cached (`--movies-cache`).
inline constexpr std::size_t default_movies_cache = 10'000;

/// The per-director answers of GET /movies, shared by both movie stores; writes invalidate.
///
/// A reader takes `generation()` before it queries and `offer`s its answer with it: an answer computed before a
/// write that committed meanwhile is dropped, so a stale answer can never be cached after that write's
/// `invalidate`. A capacity of 0 turns caching off (every GET reaches the database). Thread-safe.
class director_cache {
public:
    /// A cache of at most `capacity` directors; when full it is emptied rather than grown.
    explicit director_cache(std::size_t capacity) noexcept : capacity_(capacity) {}

    /// The cached answer for `key` (a lower-cased last name), or null.
    [[nodiscard]] std::shared_ptr<const std::string> find(const std::string& key) const;
    /// The write generation a reader records before querying.
    [[nodiscard]] std::uint64_t generation() const;
    /// Caches `answer` for `key` unless a write was invalidated since `generation`.
    void offer(const std::string& key, std::shared_ptr<const std::string> answer, std::uint64_t generation);
    /// Drops the answers of `keys` after a committed write, and any answer in flight.
    void invalidate(const std::vector<std::string>& keys);

private:
    std::size_t capacity_;
    mutable std::shared_mutex mutex_;
    std::uint64_t generation_ = 0;
    std::unordered_map<std::string, std::shared_ptr<const std::string>> answers_;
};

}  // namespace execbench::endpoints
