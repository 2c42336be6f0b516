#include "stack_pool.hpp"

namespace execbench::models {

stack_pool::stack_pool(std::size_t size, std::size_t capacity) : make_(size), capacity_(capacity)
{
    spare_.reserve(capacity);
}

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
            return stack;
        }
    }
    return make_.allocate();
}

void stack_pool::deallocate(boost::context::stack_context& stack) noexcept
{
    {
        std::lock_guard lock(mutex_);
        if (spare_.size() < capacity_) {
            spare_.push_back(stack);
            return;
        }
    }
    make_.deallocate(stack);
}

}  // namespace execbench::models
