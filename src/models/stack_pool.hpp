#pragma once

#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace execbench::models {

/// Fiber stacks kept for reuse: `protected_fixedsize_stack`s (an mmap with a guard page below) that go back here when
/// their fiber ends instead of being unmapped, so a fiber per request costs no system call and no page fault once
/// warm. The pool keeps what the fibers needed lately rather than a fixed number: `trim`, called every
/// `trim_period`, unmaps the spares that no fiber took since the previous trim, so however far the number of live
/// fibers swings under steady load nothing is mapped or unmapped, and a burst's stacks are returned
/// `trim_limit` a period from one period after its end. Thread-safe.
class stack_pool {
public:
    /// How often the owner calls `trim`.
    static constexpr std::chrono::seconds trim_period{1};
    /// The most stacks one `trim` unmaps. Its caller is a carrier that stops serving meanwhile, and an unmap costs
    /// about 5 µs here: 8,000 stacks at once, as after a mass close of idle connections, stopped it for 40-46 ms.
    static constexpr std::size_t trim_limit = 512;

    /// A pool of stacks of `size` bytes (plus the guard page).
    explicit stack_pool(std::size_t size);
    ~stack_pool();
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;

    /// A spare stack, or a new one.
    boost::context::stack_context allocate();
    /// Keeps `stack` as a spare.
    void deallocate(boost::context::stack_context& stack) noexcept;
    /// Unmaps the spares that were not needed since the last trim (the fewest spares there were meanwhile), the
    /// longest unused first, at most `trim_limit`.
    void trim();

private:
    boost::context::protected_fixedsize_stack make_;
    std::mutex mutex_;
    std::vector<boost::context::stack_context> spare_;  // the most recently used last
    std::size_t low_water_ = 0;                         // the fewest spares since the last trim
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
