#include "request_state.hpp"

#include <utility>

namespace execbench::models {

namespace {

// A buffer or body that grew past this (a large POST) is freed rather than kept: spares stay small.
constexpr std::size_t largest_kept = 16 * 1024;

// Answers held for one write: past this the next one is written with them (TechEmpower's 16 pipelined answers of
// /plaintext are about 2 KiB).
constexpr std::size_t largest_held = 16 * 1024;

}  // namespace

bool request_state::parse_buffered(boost::system::error_code& ec)
{
    if (http::parse_buffered(*parser, buffer, ec))
        return true;
    auto& storage = cycle.storage;
    // A body over the limit has failed the parse by now (413 and close), so 100 Continue is only said to a body that
    // will be read.
    if (!ec && storage.expects_continue && parser->is_header_done()) {
        held.append(http::continue_interim);
        storage.expects_continue = false;
    }
    return false;
}

bool request_state::hold_answer()
{
    if (buffer.size() == 0 || !cycle.keeps_open() ||
        held.size() + out.size() + cycle.response.body.size() > largest_held)
        return false;
    held.append(out).append(cycle.response.body);
    return true;
}

std::unique_lock<std::mutex> request_spares::lock()
{
    return shared_ ? std::unique_lock(mutex_) : std::unique_lock<std::mutex>();
}

std::unique_ptr<request_state> request_spares::take(endpoints::app& app)
{
    {
        auto held = lock();
        if (!states_.empty()) {
            auto state = std::move(states_.back());
            states_.pop_back();
            return state;
        }
    }
    return std::make_unique<request_state>(app);
}

void request_spares::give(std::unique_ptr<request_state> state)
{
    if (state->buffer.size() != 0 || state->cycle.storage.body.capacity() > largest_kept ||
        state->cycle.response.body.capacity() > largest_kept || state->out.capacity() > largest_kept || !state->held.empty())
        return;  // freed here, outside the lock
    return_buffer(state->buffer);
    state->parser.reset();
    auto held = lock();
    if (states_.size() < capacity_)
        states_.push_back(std::move(state));
}

void request_spares::lend_buffer(boost::beast::flat_buffer& buffer)
{
    auto held = lock();
    if (buffers_.empty())
        return;  // the read allocates it
    buffer = std::move(buffers_.back());
    buffers_.pop_back();
}

void request_spares::return_buffer(boost::beast::flat_buffer& buffer)
{
    if (buffer.capacity() == 0)
        return;
    if (buffer.capacity() > largest_kept) {
        buffer.shrink_to_fit();  // empty, so this frees it
        return;
    }
    auto held = lock();
    if (buffers_.size() < capacity_)
        buffers_.push_back(std::move(buffer));
    else
        buffer.shrink_to_fit();
}

}  // namespace execbench::models
