#include "io_server.hpp"

#include <boost/asio/post.hpp>

namespace execbench::models {

io_group::io_group(unsigned threads)
    : spares(threads > 1), io(static_cast<int>(threads)), sweep_timer(io.get_executor()), thread_count(threads)
{
}

io_server::io_server(const server_context& context, unsigned groups, unsigned threads_each) : context_(context)
{
    for (unsigned i = 0; i < groups; ++i)
        groups_.push_back(std::make_unique<io_group>(threads_each));
}

void io_server::listen()
{
    // Accepting is just another handler on the first group.
    listener_.emplace(groups_.front()->io, context_.host, context_.port, context_.backlog);
}

void io_server::start_serving(serve_fn serve)
{
    serve_ = std::move(serve);
    std::vector<boost::asio::io_context*> targets;
    for (auto& group : groups_)
        targets.push_back(&group->io);
    listener_->start(std::move(targets), [this](socket_type socket, std::size_t i) {
        auto& group = *groups_[i];
        boost::asio::post(group.io,
                          [this, &group, socket = std::move(socket)]() mutable { serve_(std::move(socket), group); });
    });
    auto downstream = resolve_downstream(context_.downstream);
    for (auto& group : groups_) {
        group->downstream = make_downstream_client({group->io.get_executor(), group->thread_count > 1,
                                                    context_.downstream, downstream, context_.timeouts,
                                                    context_.downstream_client, context_.app.counters().downstream()});
        group->deadlines.start(group->sweep_timer, sweep_period(context_.timeouts));
        for (unsigned i = 0; i < group->thread_count; ++i)
            group->threads.push_back(run_in_thread(group->io));
    }
}

bool io_server::shutdown(std::chrono::steady_clock::time_point deadline)
{
    if (!listener_)
        return true;
    stopping_ = true;
    listener_->stop();
    bool drained = wait_for_drain(context_.app.counters(), deadline);
    for (auto& group : groups_)
        group->io.stop();
    for (auto& group : groups_)
        for (auto& thread : group->threads)
            thread.join();
    listener_.reset();
    return drained;
}

}  // namespace execbench::models
