#pragma once

// What the pool's blocking workers wait on, besides their sockets.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <system_error>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace execbench::models::detail {

/// Ends every blocking wait of the workers at once: an eventfd that poll() watches beside the socket. Raised when the
/// shutdown deadline passes, so workers blocked in a delay or a write return at once.
class abort_signal {
public:
    abort_signal() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
    {
        if (fd_ < 0)
            throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~abort_signal() { ::close(fd_); }
    abort_signal(const abort_signal&) = delete;
    abort_signal& operator=(const abort_signal&) = delete;

    /// Ends every wait, now and later (the eventfd stays readable).
    void raise() noexcept { ::eventfd_write(fd_, 1); }

    /// True once raised.
    [[nodiscard]] bool raised() const noexcept { return !wait(-1, 0, std::chrono::milliseconds(0)); }

    /// Blocks until `socket` is ready for `events` (when not -1) or `timeout` passes; false when raised first.
    bool wait(int socket, short events, std::chrono::milliseconds timeout) const noexcept
    {
        pollfd fds[2] = {{fd_, POLLIN, 0}, {socket, events, 0}};
        int r = ::poll(fds, socket < 0 ? 1 : 2, static_cast<int>(std::max<long long>(timeout.count(), 0)));
        return !(r > 0 && fds[0].revents != 0);
    }

private:
    int fd_;
};

/// The bounded queue between the poller and the workers: the poller never blocks on it, a worker does. `T` is a
/// handle whose empty value means "closed" (a `shared_ptr`).
template <class T>
class work_queue {
public:
    explicit work_queue(std::size_t capacity) : capacity_(capacity) {}

    /// Queues `item`; false when the queue is full.
    bool try_push(T item)
    {
        {
            std::lock_guard lock(mutex_);
            if (items_.size() >= capacity_)
                return false;
            items_.push_back(std::move(item));
        }
        ready_.notify_one();
        return true;
    }

    /// Blocks until an item is available; an empty `T{}` once the queue is closed and drained.
    T pop()
    {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closed_ || !items_.empty(); });
        if (items_.empty())
            return T{};
        T item = std::move(items_.front());
        items_.pop_front();
        return item;
    }

    /// Wakes every worker; pop() returns `T{}` from now on once the queue is empty.
    void close()
    {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

private:
    std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<T> items_;
    bool closed_ = false;
};

}  // namespace execbench::models::detail
