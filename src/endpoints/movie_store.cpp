#include "execbench/endpoints/movie_store.hpp"

#include "execbench/endpoints/movie_cache.hpp"
#include "execbench/endpoints/movies.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace execbench::endpoints {

namespace {

constexpr int busy_timeout_millis = 5'000;

struct statement_finalizer {
    void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using statement = std::unique_ptr<sqlite3_stmt, statement_finalizer>;

// Resets a prepared statement when leaving a scope, so it can be stepped again and drops its bound views.
class reset_on_exit {
public:
    explicit reset_on_exit(sqlite3_stmt* s) noexcept : s_(s) {}
    ~reset_on_exit()
    {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    reset_on_exit(const reset_on_exit&) = delete;
    reset_on_exit& operator=(const reset_on_exit&) = delete;

private:
    sqlite3_stmt* s_;
};

}  // namespace

// One connection behind one mutex: SQLite serialises writers anyway, and reads are served from the cache, so a
// connection pool would add complexity for no throughput.
struct movie_store::impl {
    sqlite3* db = nullptr;
    statement begin;
    statement commit;
    statement rollback;
    statement insert_movie;
    statement insert_director;
    statement select_by_director;
    statement count_movies;
    std::mutex db_mutex;
    director_cache cache;

    bool read_only = false;
    std::atomic<std::int64_t> next_id{1};

    explicit impl(std::size_t cache_capacity) : cache(cache_capacity) {}

    ~impl()
    {
        // Statements must be finalised before the connection closes.
        begin.reset();
        commit.reset();
        rollback.reset();
        insert_movie.reset();
        insert_director.reset();
        select_by_director.reset();
        count_movies.reset();
        sqlite3_close(db);
    }

    std::string failure(std::string_view what) const
    {
        return "store: " + std::string(what) + ": " + sqlite3_errmsg(db);
    }

    void exec_or_throw(const char* sql)
    {
        char* message = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            std::string text = message != nullptr ? message : "unknown error";
            sqlite3_free(message);
            throw std::runtime_error("movie store: " + std::string(sql) + ": " + text);
        }
    }

    statement prepare_or_throw(const char* sql)
    {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
            throw std::runtime_error("movie store: cannot prepare '" + std::string(sql) + "': " + sqlite3_errmsg(db));
        return statement(s);
    }

    bool step_done(sqlite3_stmt* s)
    {
        reset_on_exit reset(s);
        return sqlite3_step(s) == SQLITE_DONE;
    }

    result<std::size_t> count_locked()
    {
        reset_on_exit reset(count_movies.get());
        if (sqlite3_step(count_movies.get()) != SQLITE_ROW)
            return fail(failure("count"));
        return static_cast<std::size_t>(sqlite3_column_int64(count_movies.get(), 0));
    }

    // Inserts the batch inside one transaction; on any failure rolls back so no row of it remains. Fills `out`
    // with the JSON array and `directors` with the lower-cased director names whose cached answers are stale.
    result<void> store_locked(const nlohmann::json& movies, std::string& out, std::vector<std::string>& directors)
    {
        if (!step_done(begin.get()))
            return fail(failure("begin"));
        auto abort = [&](std::string_view what) {
            auto message = failure(what);
            step_done(rollback.get());
            return fail(std::move(message));
        };
        out = "[";
        std::string doc;
        for (const auto& movie : movies) {
            doc.clear();
            append_movie_json(movie, doc);
            std::int64_t id = 0;
            {
                reset_on_exit reset(insert_movie.get());
                sqlite3_bind_text(insert_movie.get(), 1, doc.data(), static_cast<int>(doc.size()), SQLITE_STATIC);
                if (sqlite3_step(insert_movie.get()) != SQLITE_DONE)
                    return abort("insert movie");
                id = sqlite3_last_insert_rowid(db);
            }
            auto names = director_keys(movie);
            for (const auto& name : names) {
                reset_on_exit reset(insert_director.get());
                sqlite3_bind_int64(insert_director.get(), 1, id);
                sqlite3_bind_text(insert_director.get(), 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
                if (sqlite3_step(insert_director.get()) != SQLITE_DONE)
                    return abort("insert director");
            }
            directors.insert(directors.end(), names.begin(), names.end());
            if (out.size() > 1)
                out += ',';
            append_with_id(id, doc, out);
        }
        out += ']';
        if (!step_done(commit.get()))
            return abort("commit");
        return {};
    }

    result<std::shared_ptr<const std::string>> query_locked(const std::string& key)
    {
        auto* s = select_by_director.get();
        reset_on_exit reset(s);
        sqlite3_bind_text(s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
        std::string out = "[";
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
            const auto size = static_cast<std::size_t>(sqlite3_column_bytes(s, 1));
            if (out.size() > 1)
                out += ',';
            append_with_id(sqlite3_column_int64(s, 0), std::string_view(text, size), out);
        }
        if (rc != SQLITE_DONE)
            return fail(failure("select by director"));
        out += ']';
        return std::make_shared<const std::string>(std::move(out));
    }
};

movie_store::movie_store(const movie_store_options& options) : impl_(std::make_unique<impl>(options.cache))
{
    auto& m = *impl_;
    m.read_only = options.read_only;
    const std::string location = options.path.empty() ? ":memory:" : options.path;
    // NOMUTEX: this class serialises all use of the connection itself.
    if (sqlite3_open_v2(location.c_str(), &m.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        std::string message = m.db != nullptr ? sqlite3_errmsg(m.db) : "out of memory";
        throw std::runtime_error("movie store: cannot open '" + location + "': " + message);
    }
    if (!options.path.empty()) {
        // WAL with synchronous=NORMAL: a committed transaction survives a crash or kill -9 of the process (only a
        // power loss can cost the last commits), and readers never block the writer.
        m.exec_or_throw("PRAGMA journal_mode=WAL");
        // FULL syncs the log at every commit: a POST then blocks its thread on the disk, which is what the
        // failure-modes suite's blocking row asks of it.
        m.exec_or_throw(options.sync_commits ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    }
    sqlite3_busy_timeout(m.db, busy_timeout_millis);
    m.exec_or_throw("CREATE TABLE IF NOT EXISTS movies(id INTEGER PRIMARY KEY AUTOINCREMENT, doc TEXT NOT NULL);"
                    "CREATE TABLE IF NOT EXISTS movie_directors("
                    "  movie_id INTEGER NOT NULL REFERENCES movies(id), last_name_lower TEXT NOT NULL);"
                    "CREATE INDEX IF NOT EXISTS movie_directors_by_name"
                    "  ON movie_directors(last_name_lower, movie_id);");

    m.begin = m.prepare_or_throw("BEGIN IMMEDIATE");
    m.commit = m.prepare_or_throw("COMMIT");
    m.rollback = m.prepare_or_throw("ROLLBACK");
    m.insert_movie = m.prepare_or_throw("INSERT INTO movies(doc) VALUES (?1)");
    m.insert_director = m.prepare_or_throw("INSERT INTO movie_directors(movie_id, last_name_lower) VALUES (?1, ?2)");
    m.select_by_director =
        m.prepare_or_throw("SELECT m.id, m.doc FROM movie_directors d JOIN movies m ON m.id = d.movie_id"
                           " WHERE d.last_name_lower = ?1 ORDER BY m.id");
    m.count_movies = m.prepare_or_throw("SELECT count(*) FROM movies");

    auto stored = m.count_locked();
    if (!stored)
        throw std::runtime_error("movie " + stored.err().message);
    if (*stored == 0) {
        // Seeding happens in read-only mode too: GET needs the data set, and this is start-up, not a POST.
        auto seed = parse_movies(movies_seed_json());
        if (!seed)
            throw std::runtime_error("movie store: the embedded data set is invalid: " + seed.err().message);
        std::string ignored;
        std::vector<std::string> directors;
        auto seeded = m.store_locked(*seed, ignored, directors);
        if (!seeded)
            throw std::runtime_error("movie " + seeded.err().message);
    }
    auto highest = m.prepare_or_throw("SELECT coalesce(max(id), 0) FROM movies");
    if (sqlite3_step(highest.get()) != SQLITE_ROW)
        throw std::runtime_error("movie store: cannot read the highest id: " + std::string(sqlite3_errmsg(m.db)));
    m.next_id = sqlite3_column_int64(highest.get(), 0) + 1;
}

movie_store::~movie_store() = default;

result<std::shared_ptr<const std::string>> movie_store::by_director(std::string_view last_name)
{
    auto& m = *impl_;
    const auto key = ascii_lower(last_name);
    if (auto cached = m.cache.find(key))
        return cached;
    std::lock_guard db_lock(m.db_mutex);
    const auto generation = m.cache.generation();
    auto answer = m.query_locked(key);
    if (answer)
        m.cache.offer(key, *answer, generation);
    return answer;
}

result<std::string> movie_store::add(const nlohmann::json& movies)
{
    auto& m = *impl_;
    if (!movies.is_array())
        return fail("store: expected the array returned by parse_movies");
    if (m.read_only) {
        std::string out = "[";
        std::string doc;
        for (const auto& movie : movies) {
            doc.clear();
            append_movie_json(movie, doc);
            if (out.size() > 1)
                out += ',';
            append_with_id(m.next_id.fetch_add(1, std::memory_order_relaxed), doc, out);
        }
        out += ']';
        return out;
    }
    std::string out;
    std::vector<std::string> directors;
    std::lock_guard db_lock(m.db_mutex);
    auto stored = m.store_locked(movies, out, directors);
    if (!stored)
        return stored.err();
    m.cache.invalidate(directors);
    return out;
}

result<std::size_t> movie_store::count()
{
    std::lock_guard db_lock(impl_->db_mutex);
    return impl_->count_locked();
}

}  // namespace execbench::endpoints
