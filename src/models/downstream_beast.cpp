#include "downstream_beast.hpp"

#include <sys/socket.h>

namespace execbench::models {

beast_client::beast_client(const downstream_setup& setup, bool reuse)
    : executor_(boost::asio::make_strand(setup.executor)),
      server_(setup.server),
      endpoints_(setup.endpoints),
      timeouts_(setup.timeouts),
      counters_(setup.counters),
      reuse_(reuse),
      cap_(setup.executor, setup.options.connections, setup.options.queue, setup.timeouts.downstream_response,
           setup.counters)
{
}

void beast_client::cancel()
{
    cap_.cancel();
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    // shutdown(2) on the descriptor, not a call on the stream: the stream belongs to its call's thread, and the
    // kernel wakes the pending read or write with end-of-stream, which the call then reports as aborted.
    for (auto* stream : busy_)
        ::shutdown(stream->socket().native_handle(), SHUT_RDWR);
    idle_.clear();
}

std::unique_ptr<beast_client::stream_type> beast_client::take_idle()
{
    std::lock_guard lock(mutex_);
    if (idle_.empty() || cancelled_)
        return nullptr;
    auto stream = std::move(idle_.back());
    idle_.pop_back();
    busy_.insert(stream.get());
    return stream;
}

void beast_client::give_back(std::unique_ptr<stream_type> stream)
{
    stream->expires_never();
    std::lock_guard lock(mutex_);
    busy_.erase(stream.get());
    if (!cancelled_)
        idle_.push_back(std::move(stream));
}

void beast_client::track(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.insert(&stream);
    if (cancelled_)
        ::shutdown(stream.socket().native_handle(), SHUT_RDWR);
}

void beast_client::untrack(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.erase(&stream);
}

}  // namespace execbench::models
