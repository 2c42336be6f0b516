#pragma once

#include <boost/asio/deferred.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <array>
#include <cassert>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace execbench::models {

// The `coro` model's coroutine type. Asio's `awaitable` costs every connection two more heap objects than the
// coroutine's own frames: `co_spawn`'s entry-point frame (269 B, alive as long as the coroutine) and the
// `awaitable_thread` its waits carry. drogon (`Task`), cinatra (async_simple's `Lazy`) and Boost.Cobalt (`promise`,
// `task`) each bring a task type of their own for the same reason; this is the smallest one the model needs: a lazy
// task that resumes its awaiter by symmetric transfer, and Asio operations awaited as `deferred` values, resumed
// straight from their completion handler on the io_context that runs the coroutine (docs/models.md, "coro").

template <class T = void>
class coro_task;

/// `co_await coro_next_turn{}` lets the io_context run what else is ready, then resumes: `co_await post(io)` without
/// an operation's place in the frame.
struct coro_next_turn {};

namespace coro_detail {

/// Frames a thread freed, kept for the next frame of the same size: a request's frames are freed and allocated again
/// for the next request on the same thread, and this spares the hot path `malloc` and `free` (Asio's `awaitable`
/// recycles its frames the same way). Sized deallocation tells the size, so a frame carries no header.
///
/// Four slots, matched by exact size, never evicted: a rare frame (`stream_events`, `query_database`) keeps its slot
/// until a frame of its size is made again, and the common frames use the other three (a request nests at most four;
/// tests/models/coro_frame_cache_test.cpp). Under a sanitizer every frame goes to the heap, so ASan sees a frame used
/// after it was freed instead of a recycled block.
class frame_cache {
public:
    /// False under a sanitizer: frames are never kept.
#ifdef EXECBENCH_SANITIZER
    static constexpr bool recycles = false;
#else
    static constexpr bool recycles = true;
#endif
    /// Blocks kept per thread.
    static constexpr std::size_t slot_count = 4;

    /// A block of `size` bytes for a frame.
    static void* allocate(std::size_t size)
    {
        if (recycles && !gone_)
            for (auto& slot : here().slots_)
                if (slot.block != nullptr && slot.size == size)
                    return std::exchange(slot.block, nullptr);
        return ::operator new(size);
    }

    /// Blocks of `size` bytes this thread keeps now (for tests).
    static std::size_t kept(std::size_t size) noexcept
    {
        std::size_t n = 0;
        if (!gone_)
            for (const auto& slot : here().slots_)
                n += slot.block != nullptr && slot.size == size;
        return n;
    }

    /// Takes back a frame's block of `size` bytes.
    static void deallocate(void* block, std::size_t size) noexcept
    {
        if (recycles && !gone_)
            for (auto& slot : here().slots_)
                if (slot.block == nullptr) {
                    slot = {block, size};
                    return;
                }
        ::operator delete(block);
    }

    frame_cache() = default;
    frame_cache(const frame_cache&) = delete;
    frame_cache& operator=(const frame_cache&) = delete;
    ~frame_cache()
    {
        gone_ = true;
        for (auto& slot : slots_)
            ::operator delete(slot.block);
    }

private:
    static frame_cache& here() noexcept
    {
        thread_local frame_cache cache;
        return cache;
    }
    // A frame freed while its thread ends, after the cache went, goes straight back to the heap.
    static inline thread_local bool gone_ = false;

    struct slot {
        void* block = nullptr;
        std::size_t size = 0;
    };
    // A request allocates at most four frames above its connection's (`serve`, and `read_rest` → `write_held` →
    // `write_rest` at the deepest), all freed before the next request's are allocated.
    std::array<slot, slot_count> slots_{};
};

/// What every frame's promise holds: the frame that awaits it, the frame at the bottom of its stack (destroyed with
/// everything above it when a wait is abandoned) and the io_context it resumes on.
struct promise_base {
    std::coroutine_handle<> continuation_;
    std::coroutine_handle<> root_;
    boost::asio::io_context* io_ = nullptr;

    // A frame's block comes from operator new or the cache, aligned for max_align_t and no more.
    static void* operator new(std::size_t size) { return frame_cache::allocate(size); }
    static void operator delete(void* frame, std::size_t size) noexcept { frame_cache::deallocate(frame, size); }

    std::suspend_always initial_suspend() const noexcept { return {}; }

    struct final_awaiter {
        bool await_ready() const noexcept { return false; }
        template <class Promise>
        std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> frame) const noexcept
        {
            if (auto up = frame.promise().continuation_)
                return up;
            // A started coroutine has no awaiter and ends itself.
            frame.destroy();
            return std::noop_coroutine();
        }
        void await_resume() const noexcept {}
    };
    final_awaiter final_suspend() const noexcept { return {}; }

    // The model's request path reports errors as values (errors are exceptions only at start-up), so an exception
    // that leaves a coroutine is a bug, and ends the process as one that leaves a loop's handler does. Carrying it up
    // would cost every frame an exception_ptr.
    [[noreturn]] void unhandled_exception() const noexcept { std::terminate(); }

    template <class U>
    auto await_transform(coro_task<U>&& child) noexcept;
    auto await_transform(coro_next_turn) const noexcept;
    template <class Signature, class Initiation, class... Args>
    auto await_transform(boost::asio::deferred_async_operation<Signature, Initiation, Args...>&& operation);
};

template <class T>
struct promise_of : promise_base {
    static_assert(alignof(T) <= alignof(std::max_align_t), "a frame is aligned for max_align_t, no more");
    std::optional<T> value_;
    template <class V>
    void return_value(V&& value)
    {
        value_.emplace(std::forward<V>(value));
    }
    T take() { return std::move(*value_); }
};

template <>
struct promise_of<void> : promise_base {
    void return_void() const noexcept {}
    void take() const noexcept {}
};

/// Where an operation's results wait for the frame to resume; nothing for an operation that completes with none.
template <class Result>
using result_slot = std::optional<std::conditional_t<std::is_void_v<Result>, std::monostate, Result>>;

/// An Asio operation's completion handler: stores the results in the awaiting frame and resumes it. Destroyed
/// without being called (its io_context went first), it destroys the coroutine's whole stack, bottom frame first.
template <class Result>
class resumer {
public:
    using executor_type = boost::asio::io_context::executor_type;

    resumer(std::coroutine_handle<> leaf, const promise_base& frame, result_slot<Result>* result) noexcept
        : leaf_(leaf), root_(frame.root_), io_(frame.io_), result_(result)
    {
    }
    resumer(resumer&& other) noexcept
        : leaf_(std::exchange(other.leaf_, {})), root_(other.root_), io_(other.io_), result_(other.result_)
    {
    }
    resumer& operator=(resumer&&) = delete;
    ~resumer()
    {
        if (leaf_)
            root_.destroy();
    }

    /// Operations that complete on another thread (the offload pool's) come back through this.
    executor_type get_executor() const noexcept { return io_->get_executor(); }

    template <class... Values>
    void operator()(Values&&... values)
    {
        if constexpr (!std::is_void_v<Result>)
            result_->emplace(std::forward<Values>(values)...);
        std::exchange(leaf_, {}).resume();
    }

private:
    std::coroutine_handle<> leaf_;
    std::coroutine_handle<> root_;
    boost::asio::io_context* io_;
    result_slot<Result>* result_;
};

template <class Signature>
struct result_of_signature;
template <>
struct result_of_signature<void()> {
    using type = void;
};
template <class Value>
struct result_of_signature<void(Value)> {
    using type = std::decay_t<Value>;
};

/// `co_await` on an Asio operation given `deferred` (or `as_tuple(deferred)`): starts it with a `resumer`.
template <class Operation, class Result>
class operation_awaiter {
public:
    explicit operation_awaiter(Operation&& operation) : operation_(std::move(operation)) {}

    bool await_ready() const noexcept { return false; }

    // noexcept: an initiation that throws (only an allocation can) ends the process, as a stack overflow ends a fiber;
    // unwinding would destroy the resumer, and with it the frame that is suspending.
    template <class Promise>
    void await_suspend(std::coroutine_handle<Promise> frame) noexcept
    {
        std::move(operation_)(resumer<Result>(frame, frame.promise(), &result_));
    }

    Result await_resume()
    {
        if constexpr (!std::is_void_v<Result>)
            return std::move(*result_);
    }

private:
    Operation operation_;
    result_slot<Result> result_;
};

}  // namespace coro_detail

/// A coroutine of the `coro` model: lazy, move-only, owning its frame until it is awaited or started.
template <class T>
class [[nodiscard]] coro_task {
public:
    struct promise_type : coro_detail::promise_of<T> {
        coro_task get_return_object() noexcept { return coro_task(handle::from_promise(*this)); }
    };
    using handle = std::coroutine_handle<promise_type>;

    coro_task(coro_task&& other) noexcept : frame_(std::exchange(other.frame_, {})) {}
    coro_task& operator=(coro_task&&) = delete;
    ~coro_task()
    {
        if (frame_)
            frame_.destroy();
    }

    /// The frame, for the frame that awaits it.
    handle frame() const noexcept { return frame_; }
    /// Gives the frame up: it ends itself from now on.
    handle release() noexcept { return std::exchange(frame_, {}); }

private:
    explicit coro_task(handle frame) noexcept : frame_(frame) {}
    handle frame_;
};

namespace coro_detail {

/// `co_await` on a child task: the child inherits its awaiter's stack and is entered by symmetric transfer.
template <class U>
class task_awaiter {
public:
    explicit task_awaiter(typename coro_task<U>::handle child) noexcept : child_(child) {}

    bool await_ready() const noexcept { return false; }

    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> parent) const noexcept
    {
        auto& child = child_.promise();
        const promise_base& up = parent.promise();
        child.continuation_ = parent;
        child.root_ = up.root_;
        child.io_ = up.io_;
        return child_;
    }

    U await_resume() const { return child_.promise().take(); }

private:
    typename coro_task<U>::handle child_;
};

}  // namespace coro_detail

template <class U>
auto coro_detail::promise_base::await_transform(coro_task<U>&& child) noexcept
{
    return task_awaiter<U>(child.frame());
}

namespace coro_detail {

/// `co_await coro_next_turn{}`: queues the frame's resumption behind what the io_context has ready.
struct next_turn_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    void await_suspend(std::coroutine_handle<Promise> frame) const noexcept
    {
        const promise_base& promise = frame.promise();
        boost::asio::post(*promise.io_, resumer<void>(frame, promise, nullptr));
    }
    void await_resume() const noexcept {}
};

}  // namespace coro_detail

inline auto coro_detail::promise_base::await_transform(coro_next_turn) const noexcept
{
    return next_turn_awaiter{};
}

template <class Signature, class Initiation, class... Args>
auto coro_detail::promise_base::await_transform(
    boost::asio::deferred_async_operation<Signature, Initiation, Args...>&& operation)
{
    using operation_type = boost::asio::deferred_async_operation<Signature, Initiation, Args...>;
    return operation_awaiter<operation_type, typename result_of_signature<Signature>::type>(std::move(operation));
}

/// Starts `task` on `io`, detached, as `co_spawn(io, task, detached)`: called on a thread running `io`, it runs here
/// to its first wait before this returns (so a task may take its caller's locals by reference until then), ends
/// itself when it returns, and is destroyed with `io` if it is still waiting then.
inline void coro_start(boost::asio::io_context& io, coro_task<> task)
{
    // Run inline or not at all: from another thread, dispatch would queue the frame, and a reference it took to the
    // caller's socket (coro.cpp's do_session) would dangle by the time it runs.
    assert(io.get_executor().running_in_this_thread());
    auto frame = task.release();
    auto& promise = frame.promise();
    promise.root_ = frame;
    promise.io_ = &io;
    boost::asio::dispatch(io, coro_detail::resumer<void>(frame, promise, nullptr));
}

}  // namespace execbench::models
