#pragma once

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <type_traits>
#include <utility>

namespace execbench::models {

/// The dedicated compute pool behind `/cpu-offloaded` (like Reactor's `Schedulers.parallel()`).
///
/// `async_run` takes any Asio completion token, so each model waits in its own idiom: `use_future` and a blocking
/// get() in `pool`, a `yield_context` in `fiber`, a callback bound to the loop in `loop`. The completion runs on the
/// handler's associated executor. What runs is the caller's business (the endpoint's `app::compute`).
class offload_pool {
public:
    /// Starts `threads` compute threads.
    explicit offload_pool(unsigned threads) : pool_(threads), threads_(threads) {}
    ~offload_pool() { stop(); }
    offload_pool(const offload_pool&) = delete;
    offload_pool& operator=(const offload_pool&) = delete;

    /// Runs `f()` on a compute thread and completes with its result.
    template <class Function, class CompletionToken>
    auto async_run(Function f, CompletionToken&& token)
    {
        using result = std::invoke_result_t<Function&>;
        return boost::asio::async_initiate<CompletionToken, void(result)>(
            [this](auto handler, Function f) {
                // Keep the handler's executor busy while the work is elsewhere, so its loop does not exit.
                auto work = boost::asio::make_work_guard(boost::asio::get_associated_executor(handler));
                boost::asio::post(pool_,
                                  [f = std::move(f), handler = std::move(handler), work = std::move(work)]() mutable {
                                      auto r = f();
                                      // The work may share ownership of what the handler's context owns (a loop's
                                      // connection): drop it here, while the handler still holds its own reference, so
                                      // the last one is never released on this thread, where the context may already be
                                      // gone.
                                      {
                                          [[maybe_unused]] auto spent = std::move(f);
                                      }
                                      auto ex = work.get_executor();
                                      // The guard travels with the completion: once dispatched, this thread must not
                                      // touch the handler's context again, which may be gone as soon as the handler has
                                      // run.
                                      boost::asio::dispatch(ex, [handler = std::move(handler), work = std::move(work),
                                                                 r = std::move(r)]() mutable {
                                          std::move(handler)(std::move(r));
                                          work.reset();
                                      });
                                  });
            },
            token, std::move(f));
    }

    /// The number of compute threads.
    [[nodiscard]] unsigned threads() const noexcept { return threads_; }

    /// Finishes queued work and joins the threads.
    void stop() { pool_.join(); }

private:
    boost::asio::thread_pool pool_;
    unsigned threads_;
};

}  // namespace execbench::models
