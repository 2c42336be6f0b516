#pragma once

#include "execbench/endpoints/downstream_counters.hpp"
#include "execbench/http/client.hpp"

#include "server_support.hpp"

#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

namespace execbench::models {

/// The `--downstream-connections` cap of one downstream client: at most `limit` calls hold a connection at once;
/// the next ones wait in a queue of at most `queue` calls, each at most `wait_limit`. A client takes a permit before
/// it takes or opens a connection and returns it after, so it never holds more than `limit` connections (idle ones
/// included: a connection is opened only when none is idle). Thread-safe.
class connection_cap {
public:
    /// No cap when `limit` is 0. Waits run on `executor`.
    connection_cap(boost::asio::io_context::executor_type executor, std::size_t limit, std::size_t queue,
                   std::chrono::milliseconds wait_limit, endpoints::downstream_counters& counters);

    /// Takes a permit when one is free (always, without a cap): true. Otherwise nothing is taken.
    bool try_acquire();

    /// Waits for a permit, after `try_acquire` failed: completes with success when it holds one, or a 503 (queue
    /// full), 504 (waited `wait_limit`) or aborted (cancelled) outcome, which holds none.
    template <class CompletionToken>
    auto async_wait(CompletionToken&& token)
    {
        return boost::asio::async_compose<CompletionToken, void(http::call_outcome)>(wait_op{*this, nullptr}, token,
                                                                                      executor_);
    }

    /// Returns a permit: to the first waiter, if any.
    void release();

    /// Fails the waiting calls and every later wait with `operation_aborted`.
    void cancel();

private:
    struct waiter {
        explicit waiter(boost::asio::io_context::executor_type executor) : timer(std::move(executor)) {}
        timer_type timer;
        std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
        bool granted = false;  // under the cap's mutex
    };

    struct wait_op {
        connection_cap& cap;
        std::shared_ptr<waiter> w;

        template <class Self>
        void operator()(Self& self)
        {
            std::unique_lock lock(cap.mutex_);
            if (auto now = cap.answer_at_once_locked()) {
                lock.unlock();
                return self.complete(std::move(*now));
            }
            w = std::make_shared<waiter>(cap.executor_);
            w->timer.expires_after(cap.wait_limit_);
            cap.waiters_.push_back(w);
            // Under the lock: a permit given back now finds the wait started, so cancelling its timer ends it.
            w->timer.async_wait(std::move(self));
        }

        template <class Self>
        void operator()(Self& self, boost::system::error_code)
        {
            auto outcome = cap.settle(*w);
            w.reset();
            self.complete(std::move(outcome));
        }
    };

    /// The answer to a wait that needs no queueing: a permit freed since `try_acquire` (taken), cancelled, or the
    /// queue full; nothing when the call must queue. Called under `mutex_`.
    std::optional<http::call_outcome> answer_at_once_locked();
    /// How `w`'s wait ended (its timer fired or was cancelled): granted, timed out or aborted.
    http::call_outcome settle(waiter& w);

    boost::asio::io_context::executor_type executor_;
    std::size_t limit_;
    std::size_t queue_;
    std::chrono::milliseconds wait_limit_;
    endpoints::downstream_counters& counters_;
    std::mutex mutex_;
    std::size_t in_use_ = 0;
    bool cancelled_ = false;
    std::deque<std::shared_ptr<waiter>> waiters_;
};

}  // namespace execbench::models
