#pragma once

#include "execbench/models/server.hpp"

#include "downstream.hpp"
#include "request_state.hpp"
#include "server_support.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace execbench::models {

/// An io_context, the threads that run it, and what the connections bound to it share: their deadline sweep, the
/// spare request states and a downstream client.
struct io_group {
    /// A group that `threads` threads will run (the io_context's concurrency hint).
    explicit io_group(unsigned threads);

    deadline_sweep deadlines;  // before io: connections that io destroys may still forget theirs
    request_spares spares;     // locked only when `threads` > 1
    boost::asio::io_context io;
    std::unique_ptr<downstream_client> downstream;  // from start: the server may be its own downstream
    timer_type sweep_timer;
    unsigned thread_count;
    std::vector<std::thread> threads;
};

/// What `fiber` and `loop` share around their connections: io_groups, one listener on the first group spreading
/// connections round-robin over the groups, and shutdown (stop accepting, drain until the deadline, stop the
/// groups). `loop` has a group per thread, so a connection stays on one thread and nothing is shared between loops;
/// `fiber` has one group run by all its carriers, so a fiber resumes on whichever carrier is free.
class io_server : public server {
public:
    void listen() override;
    [[nodiscard]] std::uint16_t port() const noexcept override { return listener_->port(); }
    bool shutdown(std::chrono::steady_clock::time_point deadline) override;

protected:
    /// Called with each accepted connection, from the thread of the group its socket is bound to.
    using serve_fn = std::function<void(socket_type socket, io_group& group)>;

    /// `groups` groups of `threads_each` threads. A derived class calls shutdown() in its destructor, while the
    /// handlers that call it back still have an object to call.
    io_server(const server_context& context, unsigned groups, unsigned threads_each);

    /// Starts accepting, hands each connection to `serve` on its group, and starts the groups' threads.
    void start_serving(serve_fn serve);

    const server_context& context_;
    std::vector<std::unique_ptr<io_group>> groups_;
    std::atomic<bool> stopping_{false};

private:
    std::optional<listener> listener_;
    serve_fn serve_;
};

}  // namespace execbench::models
