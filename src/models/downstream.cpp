#include "downstream.hpp"

#include <sys/socket.h>

namespace execbench::models {

downstream_client::downstream_client(executor_type executor, const http::url& server,
                                     boost::asio::ip::tcp::resolver::results_type endpoints,
                                     const http::timeouts& timeouts)
    : executor_(std::move(executor)), server_(server), endpoints_(std::move(endpoints)), timeouts_(timeouts)
{
}

void downstream_client::cancel()
{
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    // shutdown(2) on the descriptor, not a call on the stream: the stream belongs to its call's thread, and the
    // kernel wakes the pending read or write with end-of-stream, which the call then reports as aborted.
    for (auto* stream : busy_)
        ::shutdown(stream->socket().native_handle(), SHUT_RDWR);
    idle_.clear();
}

std::unique_ptr<downstream_client::stream_type> downstream_client::take_idle()
{
    std::lock_guard lock(mutex_);
    if (idle_.empty() || cancelled_)
        return nullptr;
    auto stream = std::move(idle_.back());
    idle_.pop_back();
    busy_.insert(stream.get());
    return stream;
}

void downstream_client::give_back(std::unique_ptr<stream_type> stream)
{
    stream->expires_never();
    std::lock_guard lock(mutex_);
    busy_.erase(stream.get());
    if (!cancelled_)
        idle_.push_back(std::move(stream));
}

void downstream_client::track(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.insert(&stream);
    if (cancelled_)
        ::shutdown(stream.socket().native_handle(), SHUT_RDWR);
}

void downstream_client::untrack(stream_type& stream)
{
    std::lock_guard lock(mutex_);
    busy_.erase(&stream);
}

}  // namespace execbench::models
