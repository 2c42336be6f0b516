#include "stack_pool.hpp"

#include <algorithm>

namespace execbench::models {

stack_pool::stack_pool(std::size_t size) : make_(size) {}

stack_pool::~stack_pool()
{
    for (auto& stack : spare_)
        make_.deallocate(stack);
}

boost::context::stack_context stack_pool::allocate()
{
    {
        std::lock_guard lock(mutex_);
        if (!spare_.empty()) {
            auto stack = spare_.back();
            spare_.pop_back();
            low_water_ = std::min(low_water_, spare_.size());
            return stack;
        }
    }
    return make_.allocate();
}

void stack_pool::deallocate(boost::context::stack_context& stack) noexcept
{
    std::lock_guard lock(mutex_);
    // A vector's push_back may throw; a stack that cannot be kept is unmapped instead.
    try {
        spare_.push_back(stack);
    } catch (...) {
        make_.deallocate(stack);
    }
}

void stack_pool::trim()
{
    std::vector<boost::context::stack_context> unused;
    {
        std::lock_guard lock(mutex_);
        const auto n = static_cast<std::ptrdiff_t>(std::min({low_water_, spare_.size(), trim_limit}));
        unused.assign(spare_.begin(), spare_.begin() + n);
        spare_.erase(spare_.begin(), spare_.begin() + n);
        low_water_ = spare_.size();
    }
    // Unmapped outside the lock: the carriers spawning fibers meanwhile do not wait for the system calls.
    for (auto& stack : unused)
        make_.deallocate(stack);
}

}  // namespace execbench::models
