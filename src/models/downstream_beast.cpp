#include "downstream_beast.hpp"

#include <stdexcept>
#include <type_traits>

#include <sys/socket.h>

namespace execbench::models {

namespace {

/// The io_context's executor, or a strand on it (beast_client's note says which and why).
template <class Executor>
Executor client_executor(const boost::asio::io_context::executor_type& executor)
{
    if constexpr (std::is_same_v<Executor, boost::asio::io_context::executor_type>)
        return executor;
    else
        return boost::asio::make_strand(executor);
}

}  // namespace

template <class Executor>
beast_client<Executor>::beast_client(const downstream_setup& setup, bool reuse)
    : executor_(client_executor<Executor>(setup.executor)),
      server_(setup.server),
      endpoints_(setup.endpoints),
      timeouts_(setup.timeouts),
      counters_(setup.counters),
      reuse_(reuse),
      cap_(setup.executor, setup.options.connections, setup.options.queue, setup.timeouts.downstream_response,
           setup.counters)
{
    if (!server_.tls)
        return;
    auto context = tls::client_context::make(setup.options.tls);
    if (!context)
        throw std::runtime_error("--downstream-ca: " + context.err().message);
    tls_context_ = std::move(*context);
    // asio's context frees the SSL_CTX it is given: it gets a reference of its own.
    SSL_CTX_up_ref(tls_context_->native());
    tls_.emplace(tls_context_->native());
}

template <class Executor>
void beast_client<Executor>::cancel()
{
    cap_.cancel();
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    // shutdown(2) on the descriptor, not a call on the stream: the stream belongs to its call's thread, and the
    // kernel wakes the pending read or write with end-of-stream, which the call then reports as aborted.
    for (auto* stream : busy_)
        ::shutdown(stream->tcp().socket().native_handle(), SHUT_RDWR);
    idle_.clear();
}

template <class Executor>
std::unique_ptr<downstream_stream> beast_client<Executor>::take_idle()
{
    std::lock_guard lock(mutex_);
    if (idle_.empty() || cancelled_)
        return nullptr;
    auto stream = std::move(idle_.back());
    idle_.pop_back();
    busy_.insert(stream.get());
    return stream;
}

template <class Executor>
void beast_client<Executor>::give_back(std::unique_ptr<stream_type> stream)
{
    stream->tcp().expires_never();
    std::lock_guard lock(mutex_);
    busy_.erase(stream.get());
    if (!cancelled_)
        idle_.push_back(std::move(stream));
}

template <class Executor>
void beast_client<Executor>::track(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.insert(&stream);
    if (cancelled_)
        ::shutdown(stream.tcp().socket().native_handle(), SHUT_RDWR);
}

template <class Executor>
void beast_client<Executor>::untrack(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.erase(&stream);
}

template class beast_client<boost::asio::io_context::executor_type>;
template class beast_client<boost::asio::strand<boost::asio::io_context::executor_type>>;

}  // namespace execbench::models
