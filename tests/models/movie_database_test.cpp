// The movies store on PostgreSQL under each model, against a real throwaway cluster (load::postgres_cluster, the
// one bench-suite starts too): the same answers as SQLite, 503 and reconnection across a database restart, 504 at
// --db-timeout, the loop serving others while its database calls wait, and no acknowledged POST lost to kill -9.
#include "execbench/load/suite/postgres_cluster.hpp"
#include "support/child_process.hpp"
#include "support/movie_json.hpp"
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>
#include <libpq-fe.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace execbench;
using namespace execbench::test_support;
using clock_type = std::chrono::steady_clock;

namespace {

/// One cluster per test process, started on first use and removed at exit.
load::postgres_cluster& cluster()
{
    static load::postgres_cluster c;
    if (!c.running()) {
        auto started = c.port() == 0 ? c.start() : c.restart();
        if (!started)
            throw std::runtime_error("PostgreSQL: " + started.err().message);
    }
    return c;
}

/// Runs `sql` on the cluster and returns the first value of its first row ("" when none).
std::string sql(const std::string& statement)
{
    std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(cluster().url().c_str()), &PQfinish);
    if (PQstatus(conn.get()) != CONNECTION_OK)
        throw std::runtime_error(std::string("test connection: ") + PQerrorMessage(conn.get()));
    PQsetNoticeProcessor(
        conn.get(), [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
    std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn.get(), statement.c_str()), &PQclear);
    const auto status = PQresultStatus(r.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
        throw std::runtime_error(statement + ": " + PQresultErrorMessage(r.get()));
    return PQntuples(r.get()) > 0 ? PQgetvalue(r.get(), 0, 0) : "";
}

/// Every INSERT into movies sleeps `seconds` while the object lives: a database made slow on purpose.
class slow_inserts {
public:
    explicit slow_inserts(double seconds)
    {
        sql("CREATE OR REPLACE FUNCTION execbench_slow() RETURNS trigger LANGUAGE plpgsql AS "
            "$$BEGIN PERFORM pg_sleep(" +
            std::to_string(seconds) + "); RETURN NULL; END$$");
        sql("DROP TRIGGER IF EXISTS execbench_slow ON movies");
        sql("CREATE TRIGGER execbench_slow BEFORE INSERT ON movies FOR EACH STATEMENT EXECUTE FUNCTION "
            "execbench_slow()");
    }
    ~slow_inserts()
    {
        try {
            sql("DROP TRIGGER IF EXISTS execbench_slow ON movies");
        } catch (const std::exception&) {
            // the cluster is gone: nothing left to slow down
        }
    }
    slow_inserts(const slow_inserts&) = delete;
    slow_inserts& operator=(const slow_inserts&) = delete;
};

std::string post_request(const std::string& body)
{
    return "POST /movies?delayInMillis=0 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

raw_response post_movies(std::uint16_t port, const std::string& body)
{
    raw_client client(port);
    client.send(post_request(body));
    return client.read_response();
}

raw_response get_director(std::uint16_t port, const std::string& name)
{
    raw_client client(port);
    return client.get("/movies?delayInMillis=0&directorLastName=" + name);
}

server_settings on_postgres(std::size_t cache = 0, unsigned pool = 10,
                            std::chrono::milliseconds timeout = std::chrono::seconds(5))
{
    server_settings s;
    s.movies_db = cluster().url();
    s.movies_cache = cache;
    s.db_pool = pool;
    s.db_timeout = timeout;
    return s;
}

}  // namespace

TEMPLATE_TEST_CASE("movies on PostgreSQL answer as the SQLite store does", "[database]", EXECBENCH_EVERY_MODEL)
{
    const auto name = model_name(TestType::value);
    test_server pg(TestType::value, on_postgres());
    test_server lite(TestType::value);

    auto from_pg = get_director(pg.port(), "Kubrick");
    auto from_lite = get_director(lite.port(), "Kubrick");
    REQUIRE(from_pg.status == 200);
    CHECK(from_pg.body == from_lite.body);
    CHECK(nlohmann::json::parse(from_pg.body).size() >= 1);

    const std::string director = "Postgres" + name;
    auto batch = "[" + small_movie(director) + "," + small_movie(director) + "]";
    auto stored = post_movies(pg.port(), batch);
    REQUIRE(stored.status == 201);
    auto ids = nlohmann::json::parse(stored.body);
    REQUIRE(ids.size() == 2);
    CHECK(ids[0]["id"].get<long long>() < ids[1]["id"].get<long long>());
    auto found = nlohmann::json::parse(get_director(pg.port(), director).body);
    REQUIRE(found.size() == 2);
    CHECK(found[0]["id"] == ids[0]["id"]);
    CHECK(found[1]["title"] == "T");

    const auto before = sql("SELECT count(*) FROM movies");
    auto bad = post_movies(pg.port(), "[" + small_movie(director) + R"(,{"title":"","releaseYear":1})" + "]");
    CHECK(bad.status == 400);
    CHECK(bad.body.find("movies[1].title") != std::string::npos);
    CHECK(sql("SELECT count(*) FROM movies") == before);

    raw_client health(pg.port());
    auto h = nlohmann::json::parse(health.get("/health").body);
    CHECK(h["moviesDb"] == cluster().url());
    CHECK(h["dbPool"] == 10);
    CHECK(h["moviesCache"] == 0);
}

TEMPLATE_TEST_CASE("a database restart answers 503 and the server reconnects without a restart", "[database]",
                   EXECBENCH_EVERY_MODEL)
{
    test_server s(TestType::value, on_postgres(0, 2));
    REQUIRE(get_director(s.port(), "Kubrick").status == 200);

    REQUIRE(cluster().stop());
    auto down = get_director(s.port(), "Kubrick");
    CHECK(down.status == 503);
    CHECK(nlohmann::json::parse(down.body).contains("error"));

    REQUIRE(cluster().restart());
    const auto deadline = clock_type::now() + std::chrono::seconds(20);
    int failures = 0;
    unsigned status = 0;
    while (clock_type::now() < deadline) {
        status = get_director(s.port(), "Kubrick").status;
        if (status == 200)
            break;
        ++failures;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(status == 200);
    // Each pooled connection that was open across the restart fails once, then reconnects.
    CHECK(failures <= 2);
}

TEMPLATE_TEST_CASE("a slow database answers 504 at --db-timeout and stores nothing", "[database]",
                   EXECBENCH_EVERY_MODEL)
{
    const auto director = "Slow" + model_name(TestType::value);
    test_server s(TestType::value, on_postgres(0, 2, std::chrono::milliseconds(800)));
    {
        slow_inserts slow(5);
        const auto start = clock_type::now();
        auto late = post_movies(s.port(), small_movie(director));
        const auto took = clock_type::now() - start;
        CHECK(late.status == 504);
        CHECK(late.body.find("movies database") != std::string::npos);
        CHECK(took >= std::chrono::milliseconds(700));
        CHECK(took < std::chrono::seconds(4));
    }
    CHECK(get_director(s.port(), director).body == "[]");
    CHECK(post_movies(s.port(), small_movie(director)).status == 201);
}

TEST_CASE("loop with one thread serves other requests while its database calls wait", "[database]")
{
    constexpr int calls = 8;
    constexpr auto delay = std::chrono::seconds(2);
    auto settings = on_postgres(0, calls);
    settings.threads = 1;
    test_server s(models::model::loop, settings);
    slow_inserts slow(2);

    const auto start = clock_type::now();
    std::vector<std::unique_ptr<raw_client>> clients;
    for (int i = 0; i < calls; ++i) {
        clients.push_back(std::make_unique<raw_client>(s.port()));
        clients.back()->send(post_request(small_movie("Concurrent")));
    }
    raw_client other(s.port());
    CHECK(other.get("/epoch-millis?delayInMillis=0").status == 200);
    // Answered while every database call still sleeps.
    CHECK(clock_type::now() - start < delay / 2);
    for (auto& c : clients)
        CHECK(c->read_response(std::chrono::seconds(20)).status == 201);
    // In about one delay, not one delay each (8 in sequence would take 16 s).
    CHECK(clock_type::now() - start < delay * 3);
}

TEMPLATE_TEST_CASE("kill -9 of bench-server during POSTs loses no acknowledged movie", "[database]",
                   EXECBENCH_EVERY_MODEL)
{
    const auto name = model_name(TestType::value);
    server_process server({"--model", name, "--movies-db", cluster().url(), "--db-pool", "4"});
    std::mutex mutex;
    std::vector<long long> acknowledged;
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w) {
        writers.emplace_back([&] {
            try {
                raw_client client(server.port());
                for (;;) {
                    client.send(post_request(small_movie("Killed" + name)));
                    auto r = client.read_response(std::chrono::seconds(5));
                    if (r.status != 201)
                        return;
                    auto id = nlohmann::json::parse(r.body)[0]["id"].get<long long>();
                    std::lock_guard lock(mutex);
                    acknowledged.push_back(id);
                }
            } catch (const std::exception&) {
                // the server died under us: the test's point
            }
        });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    server.process().signal(SIGKILL);
    for (auto& t : writers)
        t.join();
    REQUIRE(!acknowledged.empty());
    std::string list;
    for (auto id : acknowledged)
        list += (list.empty() ? "" : ",") + std::to_string(id);
    CHECK(sql("SELECT count(*) FROM movies WHERE id IN (" + list + ")") == std::to_string(acknowledged.size()));
}

TEMPLATE_TEST_CASE("the shutdown deadline ends requests waiting for the database", "[database]", EXECBENCH_EVERY_MODEL)
{
    // Issue 11 §3: every wait ends at --shutdown-timeout. The insert sleeps 5 s and --db-timeout is 10 s, so only
    // the shutdown deadline (1 s) can end the POST's wait before 3 s.
    const auto name = model_name(TestType::value);
    server_process server({"--model", name, "--movies-db", cluster().url(), "--db-pool", "2", "--db-timeout", "10",
                           "--shutdown-timeout", "1"});
    slow_inserts slow(5);
    raw_client client(server.port());
    client.send(post_request(small_movie("Shutdown" + name)));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto start = clock_type::now();
    server.process().signal(SIGTERM);
    auto code = server.process().wait_exit(std::chrono::seconds(10));
    REQUIRE(code.has_value());
    const auto took = clock_type::now() - start;
    CHECK(*code == 1);
    CHECK(took >= std::chrono::milliseconds(900));
    CHECK(took < std::chrono::seconds(3));
    CHECK(server.process().stderr_text().find("shutdown timeout reached") != std::string::npos);
}
