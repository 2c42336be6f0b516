#include "execbench/endpoints/movie_cache.hpp"

#include <mutex>

namespace execbench::endpoints {

std::shared_ptr<const std::string> director_cache::find(const std::string& key) const
{
    if (capacity_ == 0)
        return nullptr;
    std::shared_lock lock(mutex_);
    auto it = answers_.find(key);
    return it == answers_.end() ? nullptr : it->second;
}

std::uint64_t director_cache::generation() const
{
    std::shared_lock lock(mutex_);
    return generation_;
}

void director_cache::offer(const std::string& key, std::shared_ptr<const std::string> answer, std::uint64_t generation)
{
    if (capacity_ == 0)
        return;
    std::unique_lock lock(mutex_);
    if (generation != generation_)
        return;
    // A client asking for random names empties the cache instead of growing it.
    if (answers_.size() >= capacity_)
        answers_.clear();
    answers_.insert_or_assign(key, std::move(answer));
}

void director_cache::invalidate(const std::vector<std::string>& keys)
{
    std::unique_lock lock(mutex_);
    ++generation_;
    for (const auto& key : keys)
        answers_.erase(key);
}

}  // namespace execbench::endpoints
