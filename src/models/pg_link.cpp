// One PostgreSQL connection of the movies: the SQL text, and libpq's non-blocking connect, send and read steps.
#include "pg_link.hpp"

#include "execbench/endpoints/movies.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace execbench::models::detail {

namespace {

// Created by whichever server starts first; the advisory lock keeps two servers starting together from racing.
constexpr const char* schema_sql =
    "SELECT pg_advisory_lock(7311);"
    "CREATE TABLE IF NOT EXISTS movies(id BIGSERIAL PRIMARY KEY, doc TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS movie_directors("
    "  movie_id BIGINT NOT NULL REFERENCES movies(id), last_name_lower TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS movie_directors_by_name ON movie_directors(last_name_lower, movie_id);";
constexpr const char* unlock_sql = "SELECT pg_advisory_unlock(7311)";

constexpr const char* count_sql = "SELECT count(*) FROM movies";

constexpr const char* select_sql = "SELECT m.id, m.doc FROM movie_directors d JOIN movies m ON m.id = d.movie_id"
                                   " WHERE d.last_name_lower = $1 ORDER BY m.id";

// A batch in one statement, so it is one implicit transaction and one round trip: ids are drawn first, the movies
// and their directors inserted from the same rows, and the ids come back in the batch's order. A `json` value keeps
// its text, so each element is stored exactly as append_movie_json wrote it.
constexpr const char* insert_sql =
    "WITH input AS MATERIALIZED ("
    "  SELECT nextval('movies_id_seq') AS id, m.value::text AS doc, m.ord"
    "  FROM json_array_elements($1::json) WITH ORDINALITY AS m(value, ord)),"
    " stored AS (INSERT INTO movies(id, doc) SELECT id, doc FROM input),"
    " named AS (INSERT INTO movie_directors(movie_id, last_name_lower)"
    "  SELECT i.id, n.name FROM input i, json_array_elements_text($2::json -> (i.ord::int - 1)) AS n(name))"
    " SELECT id FROM input ORDER BY ord";

// libpq's messages span lines ("FATAL:  ...\n\tIs the server running ...?\n"): one line, single spaces, for a
// JSON error and a start-up message.
std::string trimmed(const char* message)
{
    std::string text;
    for (const char* c = message != nullptr ? message : ""; *c != '\0'; ++c) {
        const bool space = *c == ' ' || *c == '\n' || *c == '\t' || *c == '\r';
        if (!space)
            text += *c;
        else if (!text.empty() && text.back() != ' ')
            text += ' ';
    }
    if (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text.empty() ? "unknown error" : text;
}

template <class Integer>
Integer integer_at(const PGresult* r, int row, int column)
{
    std::string_view text(PQgetvalue(r, row, column), static_cast<std::size_t>(PQgetlength(r, row, column)));
    Integer n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
}

// Runs `sql` on `conn`, waiting for it (start-up only); throws with the server's message.
PGresult* exec_blocking(PGconn* conn, const char* sql, int n = 0, const char* const* params = nullptr)
{
    PQsetnonblocking(conn, 0);
    PGresult* r = n == 0 ? PQexec(conn, sql) : PQexecParams(conn, sql, n, nullptr, params, nullptr, nullptr, 0);
    PQsetnonblocking(conn, 1);
    const auto status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        std::string message = trimmed(PQresultErrorMessage(r));
        PQclear(r);
        throw std::runtime_error("movies database: " + message);
    }
    return r;
}

// One result of `job`'s statement into its answer: the JSON array of the rows, or the failure the SQLSTATE names.
void take(const PGresult* r, db_job& job)
{
    const auto status = PQresultStatus(r);
    if (status == PGRES_COMMAND_OK || job.answer.failed)
        return;
    if (status != PGRES_TUPLES_OK) {
        const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        const std::string_view code = state != nullptr ? state : "";
        auto f = http::failure::internal;
        if (code == "57014")  // query_canceled: statement_timeout
            f = http::failure::database_timeout;
        else if (code.starts_with("08") || code.starts_with("57P") || code.starts_with("53"))
            f = http::failure::database_unavailable;  // connection lost, server shutting down or starting
        job.answer = failed(f, trimmed(PQresultErrorMessage(r)));
        return;
    }
    auto body = std::make_shared<std::string>("[");
    const int rows = PQntuples(r);
    for (int i = 0; i < rows; ++i) {
        if (i > 0)
            *body += ',';
        const auto id = integer_at<std::int64_t>(r, i, 0);
        if (job.post)
            endpoints::append_with_id(id, job.docs[static_cast<std::size_t>(i)], *body);
        else
            endpoints::append_with_id(
                id, std::string_view(PQgetvalue(r, i, 1), static_cast<std::size_t>(PQgetlength(r, i, 1))), *body);
    }
    *body += ']';
    job.answer.body = std::move(body);
}

const char* const* keywords() noexcept
{
    static const char* const k[] = {"dbname", "options", "application_name", "connect_timeout", nullptr};
    return k;
}

}  // namespace

endpoints::database_answer failed(http::failure f, std::string detail)
{
    return {f, std::move(detail), nullptr};
}

db_link::db_link(const std::string& url, std::chrono::milliseconds timeout)
    : url_(url),
      options_("-c statement_timeout=" + std::to_string(timeout.count()) + " -c client_min_messages=warning"),
      connect_timeout_(std::to_string(std::max<long long>(2, (timeout.count() + 999) / 1000)))
{
}

db_link::~db_link()
{
    close();
}

void db_link::connect_blocking()
{
    close();
    conn_ = PQconnectdbParams(keywords(), values(), 1);
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK)
        throw std::runtime_error("movies database: cannot connect to " + url_ + ": " + error());
    PQsetnonblocking(conn_, 1);
}

void db_link::create_schema()
{
    PQclear(exec_blocking(conn_, schema_sql));
}

std::size_t db_link::stored_movies()
{
    auto* r = exec_blocking(conn_, count_sql);
    const auto n = integer_at<std::size_t>(r, 0, 0);
    PQclear(r);
    return n;
}

void db_link::insert_blocking(const db_job& job)
{
    const char* params[] = {job.docs_param.c_str(), job.directors_param.c_str()};
    PQclear(exec_blocking(conn_, insert_sql, 2, params));
}

void db_link::unlock_schema()
{
    PQclear(exec_blocking(conn_, unlock_sql));
}

db_wait db_link::start(db_job& job)
{
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK || phase_ != phase::idle) {
        close();
        conn_ = PQconnectStartParams(keywords(), values(), 1);
        if (conn_ == nullptr || PQstatus(conn_) == CONNECTION_BAD)
            return fail(job, http::failure::database_unavailable, "cannot connect: " + error());
        phase_ = phase::connecting;
        return db_wait::write;  // as libpq asks: first wait for the socket to be writable
    }
    return send(job);
}

db_wait db_link::resume(db_job& job)
{
    switch (phase_) {
    case phase::idle: return db_wait::done;
    case phase::connecting:
        switch (PQconnectPoll(conn_)) {
        case PGRES_POLLING_READING: return db_wait::read;
        case PGRES_POLLING_WRITING: return db_wait::write;
        case PGRES_POLLING_OK:
            PQsetnonblocking(conn_, 1);
            phase_ = phase::idle;
            return send(job);
        default: return fail(job, http::failure::database_unavailable, "cannot connect: " + error());
        }
    case phase::flushing: return flush(job);
    case phase::reading: return read(job);
    }
    return db_wait::done;
}

int db_link::socket() const noexcept
{
    return conn_ != nullptr ? PQsocket(conn_) : -1;
}

bool db_link::reusable() const noexcept
{
    return conn_ != nullptr && phase_ == phase::idle && PQstatus(conn_) == CONNECTION_OK;
}

void db_link::close() noexcept
{
    if (conn_ != nullptr)
        PQfinish(conn_);
    conn_ = nullptr;
    phase_ = phase::idle;
}

const char* const* db_link::values() noexcept
{
    values_ = {url_.c_str(), options_.c_str(), "bench-server", connect_timeout_.c_str(), nullptr};
    return values_.data();
}

std::string db_link::error() const
{
    return trimmed(conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory");
}

db_wait db_link::fail(db_job& job, http::failure f, std::string detail)
{
    if (!job.answer.failed)
        job.answer = failed(f, std::move(detail));
    close();  // reconnects on the next job
    return db_wait::done;
}

db_wait db_link::send(db_job& job)
{
    int ok = 0;
    if (job.post) {
        const char* params[] = {job.docs_param.c_str(), job.directors_param.c_str()};
        ok = PQsendQueryParams(conn_, insert_sql, 2, nullptr, params, nullptr, nullptr, 0);
    } else {
        const char* params[] = {job.key.c_str()};
        ok = PQsendQueryParams(conn_, select_sql, 1, nullptr, params, nullptr, nullptr, 0);
    }
    if (ok == 0)
        return fail(job, http::failure::database_unavailable, "cannot send: " + error());
    return flush(job);
}

db_wait db_link::flush(db_job& job)
{
    const int r = PQflush(conn_);
    if (r < 0)
        return fail(job, http::failure::database_unavailable, "cannot send: " + error());
    phase_ = r == 0 ? phase::reading : phase::flushing;
    return r == 0 ? db_wait::read : db_wait::write;
}

db_wait db_link::read(db_job& job)
{
    if (PQconsumeInput(conn_) == 0)
        return fail(job, http::failure::database_unavailable, error());
    while (PQisBusy(conn_) == 0) {
        PGresult* r = PQgetResult(conn_);
        if (r == nullptr) {
            phase_ = phase::idle;
            return db_wait::done;
        }
        take(r, job);
        PQclear(r);
    }
    return db_wait::read;
}

}  // namespace execbench::models::detail
