#pragma once

#include "execbench/endpoints/sha256_chain.hpp"

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <cstdint>
#include <utility>

namespace execbench::models {

/// The dedicated compute pool behind `/cpu-offloaded` (like Reactor's `Schedulers.parallel()`).
///
/// `async_compute` takes any Asio completion token, so each model waits in its own idiom: `use_future` and a
/// blocking get() in `pool`, a `yield_context` in `fiber`, a callback bound to the loop in `loop`. The completion
/// runs on the handler's associated executor.
class offload_pool {
public:
    /// Starts `threads` compute threads.
    explicit offload_pool(unsigned threads) : pool_(threads), threads_(threads) {}
    ~offload_pool() { stop(); }
    offload_pool(const offload_pool&) = delete;
    offload_pool& operator=(const offload_pool&) = delete;

    /// Computes the SHA-256 chain of `iterations` on a compute thread and completes with the digest.
    template <class CompletionToken>
    auto async_compute(std::uint32_t iterations, CompletionToken&& token)
    {
        return boost::asio::async_initiate<CompletionToken, void(endpoints::digest)>(
            [this](auto handler, std::uint32_t n) {
                // Keep the handler's executor busy while the work is elsewhere, so its loop does not exit.
                auto work = boost::asio::make_work_guard(boost::asio::get_associated_executor(handler));
                boost::asio::post(pool_, [n, handler = std::move(handler), work = std::move(work)]() mutable {
                    auto d = endpoints::sha256_chain(n);
                    auto ex = work.get_executor();
                    // The guard travels with the completion: once dispatched, this thread must not touch the
                    // handler's context again, which may be gone as soon as the handler has run.
                    boost::asio::dispatch(ex, [handler = std::move(handler), work = std::move(work), d]() mutable {
                        std::move(handler)(d);
                        work.reset();
                    });
                });
            },
            token, iterations);
    }

    /// The number of compute threads.
    [[nodiscard]] unsigned threads() const noexcept { return threads_; }

    /// Finishes queued work and joins the threads.
    void stop()
    {
        pool_.join();
    }

private:
    boost::asio::thread_pool pool_;
    unsigned threads_;
};

}  // namespace execbench::models
