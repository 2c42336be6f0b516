#include "connection_cap.hpp"

#include <boost/asio/error.hpp>

#include <algorithm>
#include <string>

namespace execbench::models {

connection_cap::connection_cap(boost::asio::io_context::executor_type executor, std::size_t limit,
                               std::size_t queue, std::chrono::milliseconds wait_limit,
                               endpoints::downstream_counters& counters)
    : executor_(std::move(executor)), limit_(limit), queue_(queue), wait_limit_(wait_limit), counters_(counters)
{
}

bool connection_cap::try_acquire()
{
    if (limit_ == 0)
        return true;
    std::lock_guard lock(mutex_);
    // Behind the queue, never ahead of it: a permit freed while calls wait went to the first of them.
    if (cancelled_ || in_use_ >= limit_ || !waiters_.empty())
        return false;
    ++in_use_;
    return true;
}

std::optional<http::call_outcome> connection_cap::answer_at_once_locked()
{
    if (cancelled_)
        return http::call_outcome::from_error(boost::asio::error::operation_aborted);
    if (in_use_ < limit_ && waiters_.empty()) {
        ++in_use_;
        return http::call_outcome::success();
    }
    if (waiters_.size() >= queue_) {
        counters_.pool_rejected();
        return http::call_outcome{http::failure::downstream_queue_full,
                                  "all " + std::to_string(limit_) + " connections are busy and " +
                                      std::to_string(waiters_.size()) +
                                      " calls already wait for one (--downstream-connections, --downstream-queue)"};
    }
    return std::nullopt;
}

http::call_outcome connection_cap::settle(waiter& w)
{
    std::lock_guard lock(mutex_);
    auto waited = std::chrono::steady_clock::now() - w.since;
    if (w.granted) {
        counters_.pool_waited(waited, false);
        return http::call_outcome::success();
    }
    waiters_.erase(std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& p) { return p.get() == &w; }));
    if (cancelled_) {
        counters_.pool_waited(waited, false);
        return http::call_outcome::from_error(boost::asio::error::operation_aborted);
    }
    counters_.pool_waited(waited, true);
    return http::call_outcome{http::failure::downstream_timeout,
                              "no downstream connection came free within " + std::to_string(wait_limit_.count()) +
                                  " ms (--downstream-connections " + std::to_string(limit_) + ")"};
}

void connection_cap::release()
{
    if (limit_ == 0)
        return;
    std::lock_guard lock(mutex_);
    if (waiters_.empty()) {
        --in_use_;
        return;
    }
    // The permit passes to the first waiter as it is: in_use_ stays.
    auto w = std::move(waiters_.front());
    waiters_.pop_front();
    w->granted = true;
    w->timer.cancel();
}

void connection_cap::cancel()
{
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    for (auto& w : waiters_)
        w->timer.cancel();
}

}  // namespace execbench::models
