#pragma once

#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace execbench::models {

/// Fiber stacks kept for reuse: `protected_fixedsize_stack`s (an mmap with a guard page below) that go back here when
/// their fiber ends instead of being unmapped, so a fiber per request costs no system call and no page fault once
/// warm. At most `capacity` are kept; the rest are unmapped, so a burst's stacks are returned. Thread-safe.
class stack_pool {
public:
    /// A pool of stacks of `size` bytes (plus the guard page), keeping at most `capacity` spare.
    stack_pool(std::size_t size, std::size_t capacity);
    ~stack_pool();
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;

    /// A spare stack, or a new one.
    boost::context::stack_context allocate();
    /// Takes `stack` back when there is room, else unmaps it.
    void deallocate(boost::context::stack_context& stack) noexcept;

private:
    boost::context::protected_fixedsize_stack make_;
    std::size_t capacity_;
    std::mutex mutex_;
    std::vector<boost::context::stack_context> spare_;
};

/// The StackAllocator `asio::spawn` copies into each fiber: a handle to a `stack_pool`, which must outlive the fiber.
class pooled_stack {
public:
    /// Allocates from `pool`.
    explicit pooled_stack(stack_pool& pool) noexcept : pool_(&pool) {}
    /// A stack from the pool.
    boost::context::stack_context allocate() { return pool_->allocate(); }
    /// Gives `stack` back to the pool.
    void deallocate(boost::context::stack_context& stack) noexcept { pool_->deallocate(stack); }

private:
    stack_pool* pool_;
};

}  // namespace execbench::models
