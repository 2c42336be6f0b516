// The movies' asynchronous exchange for fiber and loop: `movie_database::async_run` as an Asio composed operation that
// waits for a free connection on a timer and for the libpq socket on a descriptor, and never blocks its thread.
#pragma once

#include "execbench/models/movie_database.hpp"

#include "pg_deadline.hpp"
#include "pg_link.hpp"
#include "pg_link_pool.hpp"

#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace execbench::models {

/// One asynchronous exchange's state, on the heap so its address survives moving the operation.
struct movie_database::op_state {
    /// The executor of the io_context the exchange waits on.
    using executor_type = boost::asio::io_context::executor_type;
    /// The libpq socket, registered with that io_context's reactor (never closed by it: the socket is libpq's).
    using descriptor_type = boost::asio::posix::basic_stream_descriptor<executor_type>;
    /// A steady timer on that io_context.
    using timer_type =
        boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                          boost::asio::wait_traits<std::chrono::steady_clock>, executor_type>;

    /// A fresh exchange of `database` waiting on `executor`'s io_context.
    op_state(movie_database& database, executor_type executor);
    ~op_state();  // gives back whatever the exchange still holds: its waiter, its connection, its descriptor
    op_state(const op_state&) = delete;
    op_state& operator=(const op_state&) = delete;

    /// The descriptor for the link's socket, (re)registered with this exchange's reactor when it changed.
    descriptor_type& descriptor_for(int fd, bool fresh);
    /// Lets go of the descriptor without closing the socket.
    void release_descriptor() noexcept;

    movie_database& db;                         ///< whose pool and cache the exchange uses
    detail::db_job job;                         ///< the statement's parameters and the answer
    timer_type timer;                           ///< the wait for a free connection, then the deadline
    std::optional<descriptor_type> descriptor;  ///< the link's socket while the exchange waits on it
    detail::db_waiter waiter;                   ///< the exchange's place in the pool's queue
    bool waiting = false;                       ///< `waiter` is queued
    detail::db_link* link = nullptr;            ///< the connection lent to the exchange
    std::shared_ptr<detail::db_watch> watch = std::make_shared<detail::db_watch>();  ///< shared with the timer
    std::chrono::steady_clock::time_point deadline;                                  ///< now + --db-timeout
};

/// The composed operation: a connection (at once, or handed over before the deadline), then the link's steps, each
/// socket wait an `async_wait` on the descriptor, until the answer or the deadline.
struct movie_database::run_op {
    /// Where the operation resumes when Asio calls it next.
    enum class step { start, handed_over, waited, done };
    movie_database& db;           ///< the database the exchange belongs to
    std::unique_ptr<op_state> s;  ///< the exchange, released once it completes
    const endpoints::plan* plan;  ///< the request's movies stage
    step next = step::start;      ///< the step `operator()` runs

    /// Runs step `next`: started, handed a connection (or the wait for one ended), or the socket became ready.
    template <class Self>
    void operator()(Self& self, boost::system::error_code ec = {})
    {
        switch (next) {
        case step::start: {
            s->deadline = std::chrono::steady_clock::now() + db.options_.timeout;
            if (db.prepare(*plan, s->job)) {
                // A cached answer: complete through the executor, never inside the initiating call.
                next = step::done;
                auto executor = s->timer.get_executor();
                return boost::asio::post(executor, std::move(self));
            }
            next = step::handed_over;
            auto* state = s.get();
            auto* link = db.pool_->acquire_or_wait(state->waiter, [&] {
                // Under the pool's lock, so a hand-over cannot cancel the timer before the wait starts.
                state->waiting = true;
                state->waiter.wake = [state] { state->timer.cancel(); };
                state->timer.expires_at(state->deadline);
                state->timer.async_wait(std::move(self));
            });
            if (link == nullptr)
                return;  // `self` waits on the timer now
            s->link = link;
            return begin(self);
        }
        case step::handed_over:
            s->waiting = false;
            s->link = db.pool_->withdraw(s->waiter);
            if (s->link == nullptr) {
                s->job.answer = db.no_connection();
                return done(self);
            }
            return begin(self);
        case step::waited:
            if (ec) {
                s->job.answer =
                    detail::failed(http::failure::database_unavailable, "waiting for the socket: " + ec.message());
                return done(self);
            }
            s->watch->disarm();
            return wait_or_done(self, s->link->resume(s->job));
        case step::done: return done(self);
        }
    }

    /// With a connection: arms the deadline and starts the link.
    template <class Self>
    void begin(Self& self)
    {
        s->timer.expires_at(s->deadline);
        s->timer.async_wait([watch = s->watch](boost::system::error_code ec) {
            if (!ec)
                watch->fire();
        });
        wait_or_done(self, s->link->start(s->job));
    }

    /// Waits on the socket for what the link asked for, or ends the exchange.
    template <class Self>
    void wait_or_done(Self& self, detail::db_wait wait)
    {
        if (wait == detail::db_wait::done)
            return done(self);
        const int fd = s->link->socket();
        if (!s->watch->arm(fd))
            return done(self);
        auto& descriptor = s->descriptor_for(fd, s->link->is_connecting());
        next = step::waited;
        descriptor.async_wait(wait == detail::db_wait::read ? op_state::descriptor_type::wait_read
                                                            : op_state::descriptor_type::wait_write,
                              std::move(self));
    }

    /// Settles the exchange and completes with its answer.
    template <class Self>
    void done(Self& self)
    {
        db.settle(*s);
        auto answer = std::move(s->job.answer);
        s.reset();
        self.complete(std::move(answer));
    }
};

template <class CompletionToken>
auto movie_database::async_run(boost::asio::io_context::executor_type executor, const endpoints::plan& p,
                               CompletionToken&& token)
{
    return boost::asio::async_compose<CompletionToken, void(endpoints::database_answer)>(
        run_op{*this, std::make_unique<op_state>(*this, executor), &p}, token, executor);
}

}  // namespace execbench::models
