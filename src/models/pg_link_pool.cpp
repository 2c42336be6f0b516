// The movies' PostgreSQL connections as a pool: lending, hand-over and cancel.
#include "pg_link_pool.hpp"

#include <algorithm>
#include <stdexcept>

#include <sys/eventfd.h>
#include <unistd.h>

namespace execbench::models::detail {

link_pool::link_pool(const std::string& url, std::chrono::milliseconds timeout, unsigned size)
    : cancel_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
{
    if (cancel_fd_ < 0)
        throw std::runtime_error("movies database: eventfd failed");
    struct close_on_throw {
        int fd;
        bool armed = true;
        ~close_on_throw()
        {
            if (armed)
                ::close(fd);
        }
    } guard{cancel_fd_};
    if (size == 0)
        throw std::runtime_error("movies database: the pool needs at least one connection");
    for (unsigned i = 0; i < size; ++i) {
        links_.push_back(std::make_unique<db_link>(url, timeout));
        links_.back()->connect_blocking();
    }
    for (auto& link : links_)
        idle_.push_back(link.get());
    guard.armed = false;
}

link_pool::~link_pool()
{
    ::close(cancel_fd_);
}

link_pool::lent link_pool::acquire_blocking(std::chrono::steady_clock::time_point deadline)
{
    db_waiter waiter;
    waiter.wake = [this] { handed_over_.notify_all(); };
    if (auto* link = acquire_or_wait(waiter, [] {}))
        return {link, false};
    bool stop = false;
    {
        std::unique_lock lock(mutex_);
        handed_over_.wait_until(lock, deadline, [&] { return waiter.link != nullptr || cancelled_; });
        stop = cancelled_;
    }
    return {withdraw(waiter), stop};
}

db_link* link_pool::withdraw(db_waiter& waiter)
{
    std::lock_guard lock(mutex_);
    waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), &waiter), waiters_.end());
    auto* link = waiter.link;
    waiter.link = nullptr;
    return link;
}

void link_pool::give_back(db_link* link)
{
    std::lock_guard lock(mutex_);
    if (waiters_.empty()) {
        idle_.push_back(link);
        return;
    }
    auto* waiter = waiters_.front();
    waiters_.pop_front();
    waiter->link = link;
    waiter->wake();
}

void link_pool::cancel()
{
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    ::eventfd_write(cancel_fd_, 1);
    handed_over_.notify_all();
}

}  // namespace execbench::models::detail
