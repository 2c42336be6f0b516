// The movies on PostgreSQL put together: start-up, a request's job and how it ends (cache, 504), and pool's blocking
// exchange. The link, the pool, the deadline and the asynchronous exchange are pg_*.hpp beside this file.
#include "execbench/models/movie_database.hpp"

#include "execbench/endpoints/movies.hpp"

#include "pg_link.hpp"
#include "pg_link_pool.hpp"

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <poll.h>

namespace execbench::models {

bool is_database_url(std::string_view movies_db) noexcept
{
    return movies_db.starts_with("postgresql://") || movies_db.starts_with("postgres://");
}

movie_database::movie_database(const database_options& options)
    : options_(options),
      cache_(options.cache),
      pool_(std::make_unique<detail::link_pool>(options.url, options.timeout, options.pool))
{
    auto& setup = pool_->first();
    setup.create_schema();
    if (setup.stored_movies() == 0) {
        auto seed = endpoints::parse_movies(endpoints::movies_seed_json());
        if (!seed)
            throw std::runtime_error("movies database: the embedded data set is invalid: " + seed.err().message);
        detail::db_job job;
        endpoints::plan p;
        p.post = true;
        p.movies = std::move(*seed);
        prepare(p, job);
        setup.insert_blocking(job);
    }
    setup.unlock_schema();
}

movie_database::~movie_database() = default;

void movie_database::cancel()
{
    pool_->cancel();
}

endpoints::database_answer movie_database::cancelled() const
{
    return detail::failed(http::failure::database_unavailable, "the server is shutting down (--shutdown-timeout)");
}

bool movie_database::prepare(const endpoints::plan& p, detail::db_job& job)
{
    job.post = p.post;
    if (!p.post) {
        job.key = endpoints::ascii_lower(p.director);
        if (auto cached = cache_.find(job.key)) {
            job.answer.body = std::move(cached);
            return true;
        }
        job.generation = cache_.generation();
        return false;
    }
    job.docs_param = "[";
    job.directors_param = "[";
    for (const auto& movie : p.movies) {
        std::string doc;
        endpoints::append_movie_json(movie, doc);
        auto keys = endpoints::director_keys(movie);
        if (job.docs.size() > 0) {
            job.docs_param += ',';
            job.directors_param += ',';
        }
        job.docs_param += doc;
        job.directors_param += nlohmann::json(keys).dump();
        job.docs.push_back(std::move(doc));
        job.keys.insert(job.keys.end(), keys.begin(), keys.end());
    }
    job.docs_param += ']';
    job.directors_param += ']';
    return false;
}

endpoints::database_answer movie_database::run(const endpoints::plan& p)
{
    detail::db_job job;
    if (prepare(p, job))
        return std::move(job.answer);
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    const auto lent = pool_->acquire_blocking(deadline);
    auto* link = lent.link;
    bool stop = lent.cancelled;
    if (link == nullptr)
        return stop ? cancelled() : no_connection();
    // The worker blocks in poll(2) on the connection's socket, as libpq's own PQexec does, with the request's
    // deadline as the poll timeout, and on the pool's cancel_fd so that the shutdown deadline ends the wait too.
    auto wait = stop ? detail::db_wait::done : link->start(job);
    bool timed_out = false;
    while (wait != detail::db_wait::done) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd fds[2] = {{pool_->cancel_fd(), POLLIN, 0},
                         {link->socket(), static_cast<short>(wait == detail::db_wait::read ? POLLIN : POLLOUT), 0}};
        const int ready = left.count() <= 0 ? 0 : ::poll(fds, 2, static_cast<int>(left.count()));
        if (ready > 0 && fds[0].revents != 0) {
            stop = true;
            break;
        }
        if (ready == 0) {
            timed_out = true;
            break;
        }
        wait = link->resume(job);
    }
    if (stop) {
        link->close();  // left mid-answer, or never started: the server ends its backend and rolls back
        pool_->give_back(link);
        return cancelled();
    }
    settle(job, link, timed_out);
    return std::move(job.answer);
}

void movie_database::settle(detail::db_job& job, detail::db_link*& link, bool timed_out)
{
    if (link != nullptr) {
        // A connection left mid-answer is closed (the server then ends its backend) and reconnects on its next use.
        if (!link->reusable())
            link->close();
        pool_->give_back(link);
        link = nullptr;
    }
    // An answer that arrived just as the deadline passed is kept; a wait the deadline ended (the socket shut down
    // under it) is the timeout it is, not the lost connection it looks like.
    const bool answered = !job.answer.failed && job.answer.body != nullptr;
    if (timed_out && !answered && (!job.answer.failed || *job.answer.failed == http::failure::database_unavailable)) {
        job.answer =
            detail::failed(http::failure::database_timeout,
                           "no answer within " + std::to_string(options_.timeout.count()) + " ms (--db-timeout)");
        return;
    }
    if (!job.answer.failed && job.answer.body == nullptr)
        job.answer = detail::failed(http::failure::internal, "the database sent no rows");
    if (job.answer.failed)
        return;
    if (job.post)
        cache_.invalidate(job.keys);
    else
        cache_.offer(job.key, job.answer.body, job.generation);
}

endpoints::database_answer movie_database::no_connection() const
{
    return detail::failed(http::failure::database_timeout, "no free connection of " + std::to_string(options_.pool) +
                                                               " within " + std::to_string(options_.timeout.count()) +
                                                               " ms (--db-pool, --db-timeout)");
}

}  // namespace execbench::models
