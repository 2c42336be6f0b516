#include "execbench/models/movie_database.hpp"

#include "execbench/endpoints/movies.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace execbench::models {

namespace {

// Created by whichever server starts first; the advisory lock keeps two servers starting together from racing.
constexpr const char* schema_sql =
    "SELECT pg_advisory_lock(7311);"
    "CREATE TABLE IF NOT EXISTS movies(id BIGSERIAL PRIMARY KEY, doc TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS movie_directors("
    "  movie_id BIGINT NOT NULL REFERENCES movies(id), last_name_lower TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS movie_directors_by_name ON movie_directors(last_name_lower, movie_id);";
constexpr const char* unlock_sql = "SELECT pg_advisory_unlock(7311)";

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

endpoints::database_answer failed(http::failure f, std::string detail)
{
    return {f, std::move(detail), nullptr};
}

std::int64_t id_of(const PGresult* r, int row)
{
    std::string_view text(PQgetvalue(r, row, 0), static_cast<std::size_t>(PQgetlength(r, row, 0)));
    std::int64_t id = 0;
    std::from_chars(text.data(), text.data() + text.size(), id);
    return id;
}

}  // namespace

bool is_database_url(std::string_view movies_db) noexcept
{
    return movies_db.starts_with("postgresql://") || movies_db.starts_with("postgres://");
}

namespace detail {

// Connection settings every link uses: the URL expanded by libpq, the request deadline enforced by the server as
// well (statement_timeout, so a query stuck behind a lock ends there too), no NOTICEs (libpq would print them on
// stderr, e.g. the schema's "already exists, skipping" at every start), and a name in pg_stat_activity.
class db_link {
public:
    enum class phase : std::uint8_t { idle, connecting, flushing, reading };

    db_link(const std::string& url, std::chrono::milliseconds timeout)
        : url_(url),
          options_("-c statement_timeout=" + std::to_string(timeout.count()) + " -c client_min_messages=warning"),
          connect_timeout_(std::to_string(std::max<long long>(2, (timeout.count() + 999) / 1000)))
    {
    }
    ~db_link() { close(); }
    db_link(const db_link&) = delete;
    db_link& operator=(const db_link&) = delete;

    /// Connects and waits (start-up only); throws with libpq's message.
    void connect_blocking()
    {
        close();
        conn_ = PQconnectdbParams(keywords(), values(), 1);
        if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK)
            throw std::runtime_error("movies database: cannot connect to " + url_ + ": " + error());
        PQsetnonblocking(conn_, 1);
    }

    /// Runs `sql` waiting for it (start-up only); throws with the server's message.
    PGresult* exec_blocking(const char* sql, int n = 0, const char* const* params = nullptr)
    {
        PQsetnonblocking(conn_, 0);
        PGresult* r = n == 0 ? PQexec(conn_, sql) : PQexecParams(conn_, sql, n, nullptr, params, nullptr, nullptr, 0);
        PQsetnonblocking(conn_, 1);
        const auto status = PQresultStatus(r);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            std::string message = trimmed(PQresultErrorMessage(r));
            PQclear(r);
            throw std::runtime_error("movies database: " + message);
        }
        return r;
    }

    db_wait start(db_job& job)
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

    db_wait resume(db_job& job)
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

    [[nodiscard]] int socket() const noexcept { return conn_ != nullptr ? PQsocket(conn_) : -1; }
    [[nodiscard]] bool is_connecting() const noexcept { return phase_ == phase::connecting; }
    /// True when the connection can serve the next job as it is.
    [[nodiscard]] bool reusable() const noexcept
    {
        return conn_ != nullptr && phase_ == phase::idle && PQstatus(conn_) == CONNECTION_OK;
    }

    void close() noexcept
    {
        if (conn_ != nullptr)
            PQfinish(conn_);
        conn_ = nullptr;
        phase_ = phase::idle;
    }

private:
    const char* const* keywords() const noexcept
    {
        static const char* const k[] = {"dbname", "options", "application_name", "connect_timeout", nullptr};
        return k;
    }
    const char* const* values() noexcept
    {
        values_ = {url_.c_str(), options_.c_str(), "bench-server", connect_timeout_.c_str(), nullptr};
        return values_.data();
    }
    std::string error() const { return trimmed(conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory"); }

    db_wait fail(db_job& job, http::failure f, std::string detail)
    {
        if (!job.answer.failed)
            job.answer = failed(f, std::move(detail));
        close();  // reconnects on the next job
        return db_wait::done;
    }

    db_wait send(db_job& job)
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

    db_wait flush(db_job& job)
    {
        const int r = PQflush(conn_);
        if (r < 0)
            return fail(job, http::failure::database_unavailable, "cannot send: " + error());
        phase_ = r == 0 ? phase::reading : phase::flushing;
        return r == 0 ? db_wait::read : db_wait::write;
    }

    db_wait read(db_job& job)
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
            if (job.post) {
                endpoints::append_with_id(id_of(r, i), job.docs[static_cast<std::size_t>(i)], *body);
            } else {
                endpoints::append_with_id(
                    id_of(r, i), std::string_view(PQgetvalue(r, i, 1), static_cast<std::size_t>(PQgetlength(r, i, 1))),
                    *body);
            }
        }
        *body += ']';
        job.answer.body = std::move(body);
    }

    std::string url_;
    std::string options_;
    std::string connect_timeout_;
    std::vector<const char*> values_;
    PGconn* conn_ = nullptr;
    phase phase_ = phase::idle;
};

db_wait start(db_link& link, db_job& job)
{
    return link.start(job);
}
db_wait resume(db_link& link, db_job& job)
{
    return link.resume(job);
}
int socket_of(const db_link& link) noexcept
{
    return link.socket();
}
bool connecting(const db_link& link) noexcept
{
    return link.is_connecting();
}

std::size_t stored_movies(db_link& link)
{
    auto* r = link.exec_blocking("SELECT count(*) FROM movies");
    std::string_view text(PQgetvalue(r, 0, 0), static_cast<std::size_t>(PQgetlength(r, 0, 0)));
    std::size_t n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    PQclear(r);
    return n;
}

bool db_watch::arm(int fd)
{
    std::lock_guard lock(mutex_);
    fd_ = fd;
    return !fired_;
}

void db_watch::disarm()
{
    std::lock_guard lock(mutex_);
    fd_ = -1;
}

void db_watch::fire()
{
    std::lock_guard lock(mutex_);
    fired_ = true;
    // Ends the pending wait from this thread: the exchange then reads end-of-stream and closes the connection.
    if (fd_ >= 0) {
        ::shutdown(fd_, SHUT_RDWR);
        shut_ = true;
    }
}

bool db_watch::shut()
{
    std::lock_guard lock(mutex_);
    return shut_;
}

bool db_watch::fired()
{
    std::lock_guard lock(mutex_);
    return fired_;
}

}  // namespace detail

movie_database::op_state::op_state(movie_database& database, executor_type executor) : db(database), timer(executor) {}

movie_database::op_state::~op_state()
{
    // Reached with something held only when the operation was destroyed unfinished (its io_context went away).
    watch->disarm();
    release_descriptor();
    if (waiting)
        link = db.withdraw(waiter);
    if (link != nullptr)
        db.settle(job, link, false);
}

movie_database::descriptor_type& movie_database::op_state::descriptor_for(int fd, bool fresh)
{
    // While connecting, libpq may close a socket and open another under the same number: register anew each time.
    if (descriptor && (fresh || descriptor->native_handle() != fd))
        release_descriptor();
    if (!descriptor)
        descriptor.emplace(timer.get_executor(), fd);
    return *descriptor;
}

void movie_database::op_state::release_descriptor() noexcept
{
    // release(), not close(): the socket belongs to libpq.
    if (descriptor)
        descriptor->release();
    descriptor.reset();
}

movie_database::movie_database(const database_options& options)
    : options_(options), cache_(options.cache), cancel_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
{
    if (cancel_fd_ < 0)
        throw std::runtime_error("movies database: eventfd failed");
    struct close_on_throw {
        int fd;
        bool armed = true;
        ~close_on_throw()
        {
            if (armed)
                ::close(fd);
        }
    } guard{cancel_fd_};
    if (options_.pool == 0)
        throw std::runtime_error("movies database: the pool needs at least one connection");
    for (unsigned i = 0; i < options_.pool; ++i) {
        links_.push_back(std::make_unique<detail::db_link>(options_.url, options_.timeout));
        links_.back()->connect_blocking();
    }
    auto& setup = *links_.front();
    PQclear(setup.exec_blocking(schema_sql));
    if (detail::stored_movies(setup) == 0) {
        auto seed = endpoints::parse_movies(endpoints::movies_seed_json());
        if (!seed)
            throw std::runtime_error("movies database: the embedded data set is invalid: " + seed.err().message);
        detail::db_job job;
        endpoints::plan p;
        p.post = true;
        p.movies = std::move(*seed);
        prepare(p, job);
        const char* params[] = {job.docs_param.c_str(), job.directors_param.c_str()};
        PQclear(setup.exec_blocking(insert_sql, 2, params));
    }
    PQclear(setup.exec_blocking(unlock_sql));
    for (auto& link : links_)
        idle_.push_back(link.get());
    guard.armed = false;
}

movie_database::~movie_database()
{
    ::close(cancel_fd_);
}

void movie_database::cancel()
{
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    ::eventfd_write(cancel_fd_, 1);
    handed_over_.notify_all();
}

endpoints::database_answer movie_database::cancelled() const
{
    return failed(http::failure::database_unavailable, "the server is shutting down (--shutdown-timeout)");
}

std::size_t movie_database::count()
{
    detail::db_waiter waiter;
    waiter.wake = [this] { handed_over_.notify_all(); };
    auto* link = acquire_or_wait(waiter, [] {});
    if (link == nullptr) {
        {
            std::unique_lock lock(mutex_);
            handed_over_.wait(lock, [&] { return waiter.link != nullptr; });
        }
        link = withdraw(waiter);
    }
    struct give_back_on_exit {
        movie_database& db;
        detail::db_link* link;
        ~give_back_on_exit() { db.give_back(link); }
    } guard{*this, link};
    return detail::stored_movies(*link);
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
    detail::db_waiter waiter;
    waiter.wake = [this] { handed_over_.notify_all(); };
    auto* link = acquire_or_wait(waiter, [] {});
    bool stop = false;
    if (link == nullptr) {
        {
            std::unique_lock lock(mutex_);
            handed_over_.wait_until(lock, deadline, [&] { return waiter.link != nullptr || cancelled_; });
            stop = cancelled_;
        }
        link = withdraw(waiter);
        if (link == nullptr)
            return stop ? cancelled() : no_connection();
    }
    // The worker blocks in poll(2) on the connection's socket, as libpq's own PQexec does, with the request's
    // deadline as the poll timeout, and on cancel_fd_ so that the shutdown deadline ends the wait too.
    auto wait = stop ? detail::db_wait::done : detail::start(*link, job);
    bool timed_out = false;
    while (wait != detail::db_wait::done) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd fds[2] = {
            {cancel_fd_, POLLIN, 0},
            {detail::socket_of(*link), static_cast<short>(wait == detail::db_wait::read ? POLLIN : POLLOUT), 0}};
        const int ready = left.count() <= 0 ? 0 : ::poll(fds, 2, static_cast<int>(left.count()));
        if (ready > 0 && fds[0].revents != 0) {
            stop = true;
            break;
        }
        if (ready == 0) {
            timed_out = true;
            break;
        }
        wait = detail::resume(*link, job);
    }
    if (stop) {
        link->close();  // left mid-answer, or never started: the server ends its backend and rolls back
        give_back(link);
        return cancelled();
    }
    settle(job, link, timed_out);
    return std::move(job.answer);
}

void movie_database::settle(op_state& s)
{
    s.watch->disarm();
    s.timer.cancel();
    s.release_descriptor();
    // The deadline can shut the socket down on another carrier just as the answer completes on this one: libpq then
    // reports an idle, healthy connection whose socket is gone, and the next request on it would fail with 503.
    if (s.link != nullptr && s.watch->shut())
        s.link->close();
    settle(s.job, s.link, s.watch->fired());
}

void movie_database::settle(detail::db_job& job, detail::db_link*& link, bool timed_out)
{
    if (link != nullptr) {
        // A connection left mid-answer is closed (the server then ends its backend) and reconnects on its next use.
        if (!link->reusable())
            link->close();
        give_back(link);
        link = nullptr;
    }
    // An answer that arrived just as the deadline passed is kept; a wait the deadline ended (the socket shut down
    // under it) is the timeout it is, not the lost connection it looks like.
    const bool answered = !job.answer.failed && job.answer.body != nullptr;
    if (timed_out && !answered && (!job.answer.failed || *job.answer.failed == http::failure::database_unavailable)) {
        job.answer = failed(http::failure::database_timeout,
                            "no answer within " + std::to_string(options_.timeout.count()) + " ms (--db-timeout)");
        return;
    }
    if (!job.answer.failed && job.answer.body == nullptr)
        job.answer = failed(http::failure::internal, "the database sent no rows");
    if (job.answer.failed)
        return;
    if (job.post)
        cache_.invalidate(job.keys);
    else
        cache_.offer(job.key, job.answer.body, job.generation);
}

endpoints::database_answer movie_database::no_connection() const
{
    return failed(http::failure::database_timeout, "no free connection of " + std::to_string(options_.pool) +
                                                       " within " + std::to_string(options_.timeout.count()) +
                                                       " ms (--db-pool, --db-timeout)");
}

detail::db_link* movie_database::withdraw(detail::db_waiter& waiter)
{
    std::lock_guard lock(mutex_);
    waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), &waiter), waiters_.end());
    auto* link = waiter.link;
    waiter.link = nullptr;
    return link;
}

void movie_database::give_back(detail::db_link* link)
{
    std::lock_guard lock(mutex_);
    if (waiters_.empty()) {
        idle_.push_back(link);
        return;
    }
    auto* waiter = waiters_.front();
    waiters_.pop_front();
    waiter->link = link;
    waiter->wake();
}

}  // namespace execbench::models
