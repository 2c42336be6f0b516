#pragma once

#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/movie_cache.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

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
class db_link;    ///< one pooled connection (src/models/pg_link.hpp: libpq stays out of this header)
struct db_job;    ///< one request's database work (src/models/pg_link.hpp)
class link_pool;  ///< the connections and the requests waiting for one (src/models/pg_link_pool.hpp)
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
    /// `p` must outlive the operation. Defined in the private src/models/pg_async_run.hpp, which callers include.
    template <class CompletionToken>
    auto async_run(boost::asio::io_context::executor_type executor, const endpoints::plan& p, CompletionToken&& token);

    /// Ends every blocking `run` now and later with a 503 (the shutdown deadline passed): a worker waiting for a
    /// connection or in poll() on one returns at once, and the connection it left mid-answer is closed.
    void cancel();

private:
    struct op_state;  // one asynchronous exchange's state (pg_async_run.hpp)
    struct run_op;    // the composed operation over it (pg_async_run.hpp)

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

    database_options options_;
    endpoints::director_cache cache_;
    std::unique_ptr<detail::link_pool> pool_;
};

}  // namespace execbench::models
