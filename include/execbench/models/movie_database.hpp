#pragma once

#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/movie_cache.hpp"

#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::models {

/// How bench-server reaches the database server that keeps its movies.
struct database_options {
    std::string url;                           ///< postgresql://USER@HOST:PORT/DB (libpq's URI form)
    unsigned pool = 10;                        ///< connections (--db-pool; HikariCP's default)
    std::chrono::milliseconds timeout{5'000};  ///< per request, for a free connection and the answer (--db-timeout)
    std::size_t cache = endpoints::default_movies_cache;  ///< directors cached; 0 puts the database on every GET
};

/// True when `--movies-db` names a database server (postgresql:// or postgres://) rather than a SQLite file.
bool is_database_url(std::string_view movies_db) noexcept;

namespace detail {

/// What a database exchange waits for next.
enum class db_wait : std::uint8_t { read, write, done };

/// One pooled PostgreSQL connection driven without blocking (defined in movie_database.cpp: libpq stays out of
/// this header).
class db_link;

/// One request's database work: the statement's parameters in, the answer out.
struct db_job {
    bool post = false;
    std::string key;                ///< GET: the lower-cased director
    std::uint64_t generation = 0;   ///< GET: the cache generation before the query
    std::vector<std::string> docs;  ///< POST: each movie as stored
    std::string docs_param;         ///< POST: the docs as one JSON array
    std::string directors_param;    ///< POST: per movie, its director keys, as a JSON array of arrays
    std::vector<std::string> keys;  ///< POST: every director key, for invalidating the cache
    endpoints::database_answer answer;
};

/// A request waiting for a free connection; the connection is handed over under the database's lock.
struct db_waiter {
    db_link* link = nullptr;
    std::function<void()> wake;  // called under the database's lock once `link` is set
};

/// Connects when the link has no usable connection, then sends the job's statement.
db_wait start(db_link& link, db_job& job);
/// Carries on after the socket became ready; `done` once `job.answer` is filled.
db_wait resume(db_link& link, db_job& job);
/// The socket to wait on (it changes when the link reconnects).
int socket_of(const db_link& link) noexcept;
/// True while the link connects, when libpq may swap its socket between waits.
bool connecting(const db_link& link) noexcept;

/// The deadline of one asynchronous exchange: when it passes, the socket is shut down so the pending wait ends at
/// once (from the timer's thread, which may not touch the descriptor object itself).
class db_watch {
public:
    /// Watches `fd` from now on; false when the deadline has already passed.
    bool arm(int fd);
    /// Stops watching before libpq may close or swap the socket.
    void disarm();
    /// The deadline passed: shuts the watched socket down.
    void fire();
    /// True once the deadline passed.
    bool fired();
    /// True when fire() shut a socket down: its connection cannot be used again, whatever libpq's state says.
    bool shut();

private:
    std::mutex mutex_;
    int fd_ = -1;
    bool fired_ = false;
    bool shut_ = false;
};

}  // namespace detail

/// The movies in PostgreSQL: a pool of libpq connections, the same JSON contract and cache as `movie_store`, and
/// one exchange written once and waited for in each model's way.
///
/// `run` blocks its caller (pool's workers, as Spring MVC blocks in JDBC). `async_run` is a composed operation
/// taking any Asio completion token, like `downstream_client::async_get`: `yield` in fiber, a callback in loop;
/// it waits for the libpq socket's readiness through Asio and never blocks the thread, neither for the answer nor
/// for a free connection. Thread-safe. Construction connects the pool, creates the schema and seeds an empty table,
/// and throws std::runtime_error on failure (start-up); after that failures are answers (503, 504).
class movie_database {
public:
    explicit movie_database(const database_options& options);
    ~movie_database();
    movie_database(const movie_database&) = delete;
    movie_database& operator=(const movie_database&) = delete;

    /// Serves the movies stage of `p`, blocking the calling thread until the answer or the deadline.
    endpoints::database_answer run(const endpoints::plan& p);

    /// Serves the movies stage of `p` on `executor`'s io_context; completes with `void(endpoints::database_answer)`.
    /// `p` must outlive the operation.
    template <class CompletionToken>
    auto async_run(boost::asio::io_context::executor_type executor, const endpoints::plan& p, CompletionToken&& token)
    {
        return boost::asio::async_compose<CompletionToken, void(endpoints::database_answer)>(
            run_op{*this, std::make_unique<op_state>(*this, executor), &p}, token, executor);
    }

    /// Ends every blocking `run` now and later with a 503 (the shutdown deadline passed): a worker waiting for a
    /// connection or in poll() on one returns at once, and the connection it left mid-answer is closed.
    void cancel();

    /// Movies stored (for tests and the start line).
    std::size_t count();
    /// What the server was given, after defaults.
    [[nodiscard]] const database_options& options() const noexcept { return options_; }

private:
    using executor_type = boost::asio::io_context::executor_type;
    using descriptor_type = boost::asio::posix::basic_stream_descriptor<executor_type>;
    using timer_type =
        boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                          boost::asio::wait_traits<std::chrono::steady_clock>, executor_type>;

    // One asynchronous exchange's state, on the heap so its address survives moving the operation.
    struct op_state {
        op_state(movie_database& database, executor_type executor);
        ~op_state();  // gives back whatever the exchange still holds: its waiter, its connection, its descriptor
        op_state(const op_state&) = delete;
        op_state& operator=(const op_state&) = delete;

        /// The descriptor for the link's socket, (re)registered with this exchange's reactor when it changed.
        descriptor_type& descriptor_for(int fd, bool fresh);
        void release_descriptor() noexcept;

        movie_database& db;
        detail::db_job job;
        timer_type timer;
        std::optional<descriptor_type> descriptor;
        detail::db_waiter waiter;
        bool waiting = false;  // `waiter` is queued
        detail::db_link* link = nullptr;
        std::shared_ptr<detail::db_watch> watch = std::make_shared<detail::db_watch>();
        std::chrono::steady_clock::time_point deadline;
    };

    struct run_op {
        enum class step { start, handed_over, waited, done };
        movie_database& db;
        std::unique_ptr<op_state> s;
        const endpoints::plan* plan;
        step next = step::start;

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
                auto* link = db.acquire_or_wait(state->waiter, [&] {
                    // Under the database's lock, so a hand-over cannot cancel the timer before the wait starts.
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
                s->link = db.withdraw(s->waiter);
                if (s->link == nullptr) {
                    s->job.answer = db.no_connection();
                    return done(self);
                }
                return begin(self);
            case step::waited:
                if (ec) {
                    s->job.answer = {http::failure::database_unavailable, "waiting for the socket: " + ec.message(),
                                     nullptr};
                    return done(self);
                }
                s->watch->disarm();
                return wait_or_done(self, detail::resume(*s->link, s->job));
            case step::done: return done(self);
            }
        }

        template <class Self>
        void begin(Self& self)
        {
            s->timer.expires_at(s->deadline);
            s->timer.async_wait([watch = s->watch](boost::system::error_code ec) {
                if (!ec)
                    watch->fire();
            });
            wait_or_done(self, detail::start(*s->link, s->job));
        }

        template <class Self>
        void wait_or_done(Self& self, detail::db_wait wait)
        {
            if (wait == detail::db_wait::done)
                return done(self);
            const int fd = detail::socket_of(*s->link);
            if (!s->watch->arm(fd))
                return done(self);
            auto& descriptor = s->descriptor_for(fd, detail::connecting(*s->link));
            next = step::waited;
            descriptor.async_wait(wait == detail::db_wait::read ? descriptor_type::wait_read
                                                                : descriptor_type::wait_write,
                                  std::move(self));
        }

        template <class Self>
        void done(Self& self)
        {
            db.settle(*s);
            auto answer = std::move(s->job.answer);
            s.reset();
            self.complete(std::move(answer));
        }
    };

    /// Fills `job` for `p`; true when the answer is already there (a cached GET).
    bool prepare(const endpoints::plan& p, detail::db_job& job);
    /// Ends an exchange: a passed deadline becomes a 504, the connection goes back (closed when left mid-answer),
    /// and the cache learns the answer or the write.
    void settle(op_state& s);
    void settle(detail::db_job& job, detail::db_link*& link, bool timed_out);
    /// The answer when no connection came free before the deadline.
    endpoints::database_answer no_connection() const;
    /// The answer once cancel() ended the wait.
    endpoints::database_answer cancelled() const;

    /// A free connection at once, or null after running `wait_under_lock` with `waiter` queued.
    template <class Wait>
    detail::db_link* acquire_or_wait(detail::db_waiter& waiter, Wait&& wait_under_lock)
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            auto* link = idle_.back();
            idle_.pop_back();
            return link;
        }
        waiters_.push_back(&waiter);
        wait_under_lock();
        return nullptr;
    }
    /// Takes `waiter` out of the queue; the connection it was handed, or null.
    detail::db_link* withdraw(detail::db_waiter& waiter);
    /// Hands `link` to the first waiter, or keeps it idle.
    void give_back(detail::db_link* link);

    database_options options_;
    endpoints::director_cache cache_;
    std::vector<std::unique_ptr<detail::db_link>> links_;
    std::mutex mutex_;
    std::condition_variable handed_over_;  // run()'s blocked waiters
    std::vector<detail::db_link*> idle_;
    std::deque<detail::db_waiter*> waiters_;
    bool cancelled_ = false;  // under mutex_
    int cancel_fd_ = -1;      // an eventfd, readable once cancelled: run()'s poll() watches it beside the socket
};

}  // namespace execbench::models
