// The movies' PostgreSQL connections as a pool: idle links, the requests queued for one, the hand-over under one
// lock, and the cancel that ends blocking waits at the shutdown deadline.
#pragma once

#include "pg_link.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace execbench::models::detail {

/// A request waiting for a free connection; the connection is handed over under the pool's lock.
struct db_waiter {
    db_link* link = nullptr;
    std::function<void()> wake;  // called under the pool's lock once `link` is set
};

/// A fixed set of connections, each lent to one request at a time; a returned connection goes to the request that
/// has waited longest. Thread-safe.
class link_pool {
public:
    /// Connects `size` links to `url` and waits for them (start-up only); throws std::runtime_error on failure.
    link_pool(const std::string& url, std::chrono::milliseconds timeout, unsigned size);
    ~link_pool();
    link_pool(const link_pool&) = delete;
    link_pool& operator=(const link_pool&) = delete;

    /// The first link, for the set-up at start-up, before any request runs.
    db_link& first() noexcept { return *links_.front(); }

    /// A free connection at once, or null after running `wait_under_lock` with `waiter` queued.
    template <class Wait>
    db_link* acquire_or_wait(db_waiter& waiter, Wait&& wait_under_lock)
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            auto* link = idle_.back();
            idle_.pop_back();
            return link;
        }
        waiters_.push_back(&waiter);
        wait_under_lock();
        return nullptr;
    }

    /// What a blocking caller was lent: a connection (null when none came free in time), and whether cancel() came.
    struct lent {
        db_link* link;
        bool cancelled;
    };
    /// A connection for a thread that may block: at once, or handed over before `deadline` unless cancel() comes.
    lent acquire_blocking(std::chrono::steady_clock::time_point deadline);

    /// Takes `waiter` out of the queue; the connection it was handed, or null.
    db_link* withdraw(db_waiter& waiter);
    /// Hands `link` to the first waiter, or keeps it idle.
    void give_back(db_link* link);

    /// Wakes every blocked `acquire_blocking` and makes `cancel_fd` readable, now and for good.
    void cancel();
    /// An eventfd, readable once cancelled: a blocking exchange polls it beside the socket.
    [[nodiscard]] int cancel_fd() const noexcept { return cancel_fd_; }

private:
    std::vector<std::unique_ptr<db_link>> links_;
    std::mutex mutex_;
    std::condition_variable handed_over_;  // acquire_blocking's waiters
    std::vector<db_link*> idle_;
    std::deque<db_waiter*> waiters_;
    bool cancelled_ = false;  // under mutex_
    int cancel_fd_ = -1;
};

}  // namespace execbench::models::detail
