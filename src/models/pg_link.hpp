// One PostgreSQL connection of the movies (`db_link`): libpq in non-blocking mode stepped as a state machine, the SQL
// it sends, the job it carries in and out, and the schema and seed it sets up at start-up.
#pragma once

#include "execbench/endpoints/app.hpp"
#include "execbench/http/failure.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// libpq's connection, as libpq-fe.h names it: only pg_link.cpp includes libpq itself.
struct pg_conn;

namespace execbench::models::detail {

/// What a database exchange waits for next.
enum class db_wait : std::uint8_t { read, write, done };

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

/// The answer of a failed exchange: `f` with `detail` for the JSON error.
endpoints::database_answer failed(http::failure f, std::string detail);

/// One pooled PostgreSQL connection driven without blocking: `start` and `resume` carry a job forward and say what
/// the socket must become ready for next; how the caller waits for it (poll, an Asio descriptor) is its own.
///
/// Connection settings every link uses: the URL expanded by libpq, the request deadline enforced by the server as
/// well (statement_timeout, so a query stuck behind a lock ends there too), no NOTICEs (libpq would print them on
/// stderr, e.g. the schema's "already exists, skipping" at every start), and a name in pg_stat_activity.
class db_link {
public:
    /// A link to `url` (not connected yet) whose statements the server ends after `timeout` too.
    db_link(const std::string& url, std::chrono::milliseconds timeout);
    ~db_link();
    db_link(const db_link&) = delete;
    db_link& operator=(const db_link&) = delete;

    /// Connects and waits (start-up only); throws with libpq's message.
    void connect_blocking();
    /// Takes the schema's advisory lock and creates what is missing (start-up only); throws with the server's message.
    void create_schema();
    /// Movies stored (start-up only); throws with the server's message.
    std::size_t stored_movies();
    /// Stores `job`'s batch and waits for it (start-up's seed); throws with the server's message.
    void insert_blocking(const db_job& job);
    /// Releases the lock `create_schema` took; throws with the server's message.
    void unlock_schema();

    /// Connects when the link has no usable connection, then sends the job's statement.
    db_wait start(db_job& job);
    /// Carries on after the socket became ready; `done` once `job.answer` is filled.
    db_wait resume(db_job& job);

    /// The socket to wait on (it changes when the link reconnects); -1 without a connection.
    [[nodiscard]] int socket() const noexcept;
    /// True while the link connects, when libpq may swap its socket between waits.
    [[nodiscard]] bool is_connecting() const noexcept { return phase_ == phase::connecting; }
    /// True when the connection can serve the next job as it is.
    [[nodiscard]] bool reusable() const noexcept;
    /// Closes the connection; the next job connects anew.
    void close() noexcept;

private:
    enum class phase : std::uint8_t { idle, connecting, flushing, reading };

    const char* const* values() noexcept;
    [[nodiscard]] std::string error() const;
    db_wait fail(db_job& job, http::failure f, std::string detail);
    db_wait send(db_job& job);
    db_wait flush(db_job& job);
    db_wait read(db_job& job);

    std::string url_;
    std::string options_;
    std::string connect_timeout_;
    std::vector<const char*> values_;
    pg_conn* conn_ = nullptr;
    phase phase_ = phase::idle;
};

}  // namespace execbench::models::detail
