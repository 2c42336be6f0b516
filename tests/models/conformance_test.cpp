// One conformance suite, run against every model: the same requests must get the same answers, timing aside.
#include "execbench/core/build_info.hpp"

#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include <unistd.h>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

// Independent digests of the chain h0 = sha256(b"execbench"), h(i+1) = sha256(h(i)), computed with:
//   python3 -c 'import hashlib; h=hashlib.sha256(b"execbench").digest()
//   for i in range(N): h=hashlib.sha256(h).digest()
//   print(h.hex())'
constexpr const char* sha256_chain_1 = "c498abd7b867a25d3179fc6fb497f85394e463af3815760780375977f81f3f51";
constexpr const char* sha256_chain_20000 = "869575fb3bee4f36723499072576662c01f8f3dc5c129a4f4733db807ddd622a";

json body_json(const raw_response& r)
{
    INFO("body: " << r.body);
    return json::parse(r.body);
}

long long millis_since(clock_type::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start).count();
}

long long epoch_millis_now()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The SSE event the spec defines: "data: event-<i>" padded with '.' to `bytes`, then "\n\n".
std::string expected_event(std::size_t index, std::size_t bytes)
{
    std::string event = "data: event-" + std::to_string(index);
    if (bytes > event.size() + 2)
        event.append(bytes - event.size() - 2, '.');
    return event + "\n\n";
}

std::string post_movies(std::string_view content_type, std::string_view body)
{
    std::string request = "POST /movies?delayInMillis=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ";
    request.append(content_type).append("\r\nContent-Length: ").append(std::to_string(body.size()));
    request.append("\r\n\r\n").append(body);
    return request;
}

std::string movie(std::string_view title, std::string_view director)
{
    json actor{{"firstName", "Ann"}, {"lastName", "Actor"}};
    json person{{"firstName", "Ada"}, {"lastName", director}, {"birthday", "1970-01-31"}};
    return json{{"title", title},
                {"releaseYear", 2001},
                {"genre", "DRAMA"},
                {"rating", 7.5},
                {"characters", json::array({{{"actor", actor}, {"name", "Lead"}}})},
                {"directors", json::array({person})},
                {"writers", json::array()},
                {"awards", json::array({{{"name", "Test Award"}, {"year", 2002}}})}}
        .dump();
}

// Waits until `predicate` holds; counters are updated just after a response is written, so a test that reads
// them right after its own response gives the server a moment.
template <class Predicate>
bool eventually(Predicate predicate, std::chrono::milliseconds timeout = std::chrono::seconds(5))
{
    auto deadline = clock_type::now() + timeout;
    while (!predicate()) {
        if (clock_type::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

// A 400 whose JSON error names the parameter and its range.
void check_bad_parameter(raw_client& client, const std::string& target, const std::string& name,
                         const std::string& range)
{
    INFO("GET " << target);
    auto r = client.get(target);
    CHECK(r.status == 400);
    auto error = body_json(r).at("error").get<std::string>();
    CHECK_THAT(error, Catch::Contains(name) && Catch::Contains(range));
}

}  // namespace

TEMPLATE_TEST_CASE("every endpoint answers with its documented shape", "[conformance]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());

    SECTION("/io answers waitedMillis")
    {
        auto r = client.get("/io?delayInMillis=0");
        CHECK(r.status == 200);
        CHECK_THAT(r.header("Content-Type"), Catch::StartsWith("application/json"));
        CHECK(r.header("Content-Length") == std::to_string(r.body.size()));
        CHECK(body_json(r) == json{{"waitedMillis", 0}});
    }

    SECTION("/cpu and /cpu-offloaded answer the independently computed SHA-256 chain")
    {
        for (std::string path : {"/cpu", "/cpu-offloaded"}) {
            INFO(path);
            auto one = client.get(path + "?iterations=1");
            CHECK(one.status == 200);
            CHECK(body_json(one) == json{{"iterations", 1}, {"sha256", sha256_chain_1}});
            auto many = client.get(path + "?iterations=20000");
            CHECK(body_json(many) == json{{"iterations", 20000}, {"sha256", sha256_chain_20000}});
            auto by_default = client.get(path);
            CHECK(body_json(by_default) == json{{"iterations", 20000}, {"sha256", sha256_chain_20000}});
        }
    }

    SECTION("/stream frames each event as one chunk and ends with the last chunk")
    {
        client.send_get("/stream?count=3", "Connection: close\r\n");
        auto raw = client.read_until_close();
        auto split = raw.find("\r\n\r\n");
        REQUIRE(split != std::string::npos);
        auto head = raw.substr(0, split + 4);
        CHECK_THAT(head, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
        CHECK_THAT(head, Catch::Contains("Content-Type: text/event-stream\r\n"));
        CHECK_THAT(head, Catch::Contains("Transfer-Encoding: chunked\r\n"));
        CHECK_THAT(head, Catch::Contains("Connection: close\r\n"));
        CHECK(raw.substr(split + 4) == "f\r\ndata: event-0\n\n\r\n"
                                       "f\r\ndata: event-1\n\n\r\n"
                                       "f\r\ndata: event-2\n\n\r\n"
                                       "0\r\n\r\n");
    }

    SECTION("/stream delivers every event in order, padded to eventBytes, and keeps the connection")
    {
        auto r = client.get("/stream?count=200&eventBytes=100");
        CHECK(r.status == 200);
        CHECK(r.chunked);
        std::string expected;
        for (std::size_t i = 0; i < 200; ++i)
            expected += expected_event(i, 100);
        CHECK(r.body == expected);
        CHECK(client.get("/health").status == 200);
        CHECK(eventually([&] { return server.counters().events_produced() == 200; }));
    }

    SECTION("/epoch-millis is a JSON number close to now")
    {
        auto r = client.get("/epoch-millis?delayInMillis=0");
        CHECK(r.status == 200);
        auto value = body_json(r);
        REQUIRE(value.is_number_integer());
        CHECK(std::abs(value.get<long long>() - epoch_millis_now()) < 5000);
    }

    SECTION("GET /movies lists the shipped films of each director, and [] for an unknown one")
    {
        for (std::string director : {"Allen", "Hitchcock", "Kubrick"}) {
            INFO(director);
            auto r = client.get("/movies?delayInMillis=0&directorLastName=" + director);
            CHECK(r.status == 200);
            auto movies = body_json(r);
            REQUIRE(movies.is_array());
            CHECK(!movies.empty());
            for (const auto& m : movies) {
                CHECK(m.at("id").is_number_integer());
                CHECK(m.at("title").is_string());
                CHECK(m.at("releaseYear").is_number_integer());
                CHECK(m.at("genre").get<std::string>().find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") ==
                      std::string::npos);
                CHECK(m.contains("rating"));
                CHECK(m.at("characters").is_array());
                CHECK(m.at("writers").is_array());
                CHECK(m.at("awards").is_array());
                bool directed = false;
                for (const auto& d : m.at("directors"))
                    directed = directed || d.at("lastName") == director;
                CHECK(directed);
            }
        }
        auto unknown = client.get("/movies?delayInMillis=0&directorLastName=Nobody");
        CHECK(unknown.status == 200);
        CHECK(unknown.body == "[]");
    }

    SECTION("POST /movies stores one movie or a batch, answers 201 with ids, and GET sees them")
    {
        client.send(post_movies("application/json", movie("Single", "Conformance")));
        auto single = client.read_response();
        CHECK(single.status == 201);
        auto stored = body_json(single);
        REQUIRE(stored.is_array());
        REQUIRE(stored.size() == 1);
        CHECK(stored[0].at("id").is_number_integer());
        CHECK(stored[0].at("title") == "Single");

        client.send(post_movies("application/json; charset=utf-8",
                                "[" + movie("First", "Conformance") + "," + movie("Second", "Conformance") + "]"));
        auto batch = client.read_response();
        CHECK(batch.status == 201);
        auto batch_json = body_json(batch);
        REQUIRE(batch_json.size() == 2);
        CHECK(batch_json[0].at("id") != batch_json[1].at("id"));
        CHECK(batch_json[0].at("id") != stored[0].at("id"));

        auto listed = body_json(client.get("/movies?delayInMillis=0&directorLastName=Conformance"));
        REQUIRE(listed.size() == 3);
        std::set<std::string> titles;
        for (const auto& m : listed)
            titles.insert(m.at("title").get<std::string>());
        CHECK(titles == std::set<std::string>{"Single", "First", "Second"});
    }

    SECTION("POST /movies with an invalid movie answers 400 naming the field and stores nothing of the batch")
    {
        auto bad = json::parse(movie("Broken", "Rejected"));
        bad["directors"][0].erase("lastName");
        client.send(post_movies("application/json", "[" + movie("Fine", "Rejected") + "," + bad.dump() + "]"));
        auto r = client.read_response();
        CHECK(r.status == 400);
        CHECK_THAT(body_json(r).at("error").get<std::string>(), Catch::Contains("movies[1].directors[0].lastName"));

        client.send(post_movies("application/json", "{not json"));
        auto not_json = client.read_response();
        CHECK(not_json.status == 400);
        CHECK_THAT(body_json(not_json).at("error").get<std::string>(), Catch::Contains("body"));

        CHECK(client.get("/movies?delayInMillis=0&directorLastName=Rejected").body == "[]");
    }

    SECTION("POST /movies with another content type answers 415")
    {
        client.send(post_movies("text/plain", movie("Typed", "Wrongly")));
        auto r = client.read_response();
        CHECK(r.status == 415);
        CHECK(body_json(r).contains("error"));
        raw_client other(server.port());
        CHECK(other.get("/movies?delayInMillis=0&directorLastName=Wrongly").body == "[]");
    }

    SECTION("POST /movies with a body over 1 MiB answers 413")
    {
        // The head alone announces the size; the server answers without waiting for the body.
        client.send("POST /movies HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    "Content-Length: 1048577\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 413);
        CHECK(body_json(r).contains("error"));
        CHECK(client.wait_for_close());
    }

    SECTION("/health reports the model and its settings")
    {
        auto r = client.get("/health");
        CHECK(r.status == 200);
        auto health = body_json(r);
        CHECK(health.at("status") == "up");
        CHECK(health.at("model") == model_name(TestType::value));
        CHECK(health.at("threads") == server.app().info().threads);
        CHECK(health.at("downstream") == "http://127.0.0.1:" + std::to_string(server.port()));
        // What built it: a figure names the code that made it, down to the model's implementation.
        CHECK(health.at("sourceDigest") == std::string(execbench::source_digest()));
        CHECK(health.at("implementation") == std::string(execbench::model_implementation(model_name(TestType::value))));
    }

    SECTION("/metrics has the request counters and the process figures in Prometheus text")
    {
        CHECK(client.get("/io?delayInMillis=0").status == 200);
        CHECK(client.get("/nope").status == 404);
        REQUIRE(eventually(
            [&] { return server.counters().requests(endpoints::endpoint::other, http::status::not_found) == 1; }));
        auto r = client.get("/metrics");
        CHECK(r.status == 200);
        CHECK_THAT(r.header("Content-Type"), Catch::StartsWith("text/plain"));
        CHECK_THAT(r.body, Catch::Contains("execbench_requests_total{endpoint=\"io\",status=\"200\"} 1\n"));
        CHECK_THAT(r.body, Catch::Contains("execbench_requests_total{endpoint=\"other\",status=\"404\"} 1\n"));
        CHECK_THAT(r.body, Catch::Contains("\nexecbench_requests_in_flight 1\n"));  // this request
        CHECK_THAT(r.body, Catch::Contains("\nexecbench_stream_events_produced_total 0\n"));
        for (std::string figure : {"process_resident_memory_bytes", "process_threads", "process_open_fds"}) {
            INFO(figure);
            auto at = r.body.find("\n" + figure + " ");
            REQUIRE(at != std::string::npos);
            CHECK(std::stoll(r.body.substr(at + figure.size() + 2)) > 0);
        }
        CHECK_THAT(r.body, Catch::Contains("\nprocess_cpu_seconds_total "));
    }
}

TEMPLATE_TEST_CASE("every error gets its status", "[conformance]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());

    SECTION("an unknown path is 404 and the connection stays usable")
    {
        auto r = client.get("/no-such-path");
        CHECK(r.status == 404);
        CHECK(body_json(r).contains("error"));
        CHECK(client.get("/io?delayInMillis=0").status == 200);
    }

    SECTION("a wrong method is 405 with Allow")
    {
        client.send("DELETE /io HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 405);
        CHECK(r.header("Allow") == "GET, HEAD");
        client.send("PUT /movies HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n[]");
        auto movies = client.read_response();
        CHECK(movies.status == 405);
        CHECK(movies.header("Allow") == "GET, HEAD, POST");
    }

    SECTION("a bad or out-of-range parameter is 400 naming the parameter and its range")
    {
        check_bad_parameter(client, "/io?delayInMillis=abc", "delayInMillis", "0..60000");
        check_bad_parameter(client, "/io?delayInMillis=60001", "delayInMillis", "0..60000");
        check_bad_parameter(client, "/io?delayInMillis=-1", "delayInMillis", "0..60000");
        check_bad_parameter(client, "/epoch-millis?delayCallDepth=11", "delayCallDepth", "0..10");
        check_bad_parameter(client, "/cpu?iterations=0", "iterations", "1..1000000");
        check_bad_parameter(client, "/cpu-offloaded?iterations=1000001", "iterations", "1..1000000");
        check_bad_parameter(client, "/stream?count=0", "count", "1..1000000");
        check_bad_parameter(client, "/stream?eventBytes=65537", "eventBytes", "0..65536");
        auto missing = client.get("/movies?delayInMillis=0");
        CHECK(missing.status == 400);
        CHECK_THAT(body_json(missing).at("error").get<std::string>(), Catch::Contains("directorLastName"));
    }

    SECTION("malformed HTTP is 400 and the server closes the connection")
    {
        client.send("THIS IS NOT HTTP\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 400);
        CHECK_FALSE(r.keep_alive);
        CHECK(client.wait_for_close());
    }

    SECTION("a request head over 8 KiB is 431")
    {
        client.send("GET /io HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(9000, 'a') + "\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 431);
        CHECK(client.wait_for_close());
    }

    SECTION("a request head just under 8 KiB is served")
    {
        client.send_get("/io?delayInMillis=0", "X-Padding: " + std::string(7000, 'a') + "\r\n");
        CHECK(client.read_response().status == 200);
    }
}

TEMPLATE_TEST_CASE("connections follow HTTP/1.1 keep-alive rules", "[conformance]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());

    SECTION("a keep-alive connection serves request after request")
    {
        for (int i = 0; i < 5; ++i) {
            auto r = client.get("/io?delayInMillis=0");
            CHECK(r.status == 200);
            CHECK(r.keep_alive);
        }
        CHECK_FALSE(client.wait_for_close(std::chrono::milliseconds(100)));
    }

    SECTION("pipelined requests are answered in order")
    {
        client.send("GET /io?delayInMillis=20 HTTP/1.1\r\nHost: a\r\n\r\n"
                    "GET /cpu?iterations=1 HTTP/1.1\r\nHost: a\r\n\r\n"
                    "GET /nope HTTP/1.1\r\nHost: a\r\n\r\n");
        CHECK(body_json(client.read_response()) == json{{"waitedMillis", 20}});
        CHECK(body_json(client.read_response()).at("sha256") == sha256_chain_1);
        CHECK(client.read_response().status == 404);
    }

    SECTION("Connection: close is answered with Connection: close and the server closes")
    {
        auto r = client.get("/io?delayInMillis=0", "Connection: close\r\n");
        CHECK(r.status == 200);
        CHECK(r.header("Connection") == "close");
        CHECK(client.wait_for_close());
    }

    SECTION("HTTP/1.0 closes unless it asks for keep-alive")
    {
        client.send("GET /io?delayInMillis=0 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        CHECK(client.read_response().status == 200);
        client.send("GET /io?delayInMillis=0 HTTP/1.0\r\n\r\n");
        auto r = client.read_response();
        CHECK(r.status == 200);
        CHECK(client.wait_for_close());
    }

    SECTION("a client that closes is forgotten: the connection count returns to where it was")
    {
        CHECK(client.get("/io?delayInMillis=0").status == 200);
        {
            raw_client second(server.port());
            CHECK(second.get("/health").status == 200);
            CHECK(server.counters().connections() >= 2);
        }
        CHECK(eventually([&] { return server.counters().connections() == 1; }));
    }
}

TEMPLATE_TEST_CASE("delays and downstream calls are honoured", "[conformance]", EXECBENCH_EVERY_MODEL)
{
    test_server server(TestType::value);
    raw_client client(server.port());

    SECTION("delayInMillis is a lower bound on the answer time")
    {
        auto start = clock_type::now();
        auto r = client.get("/io?delayInMillis=200");
        auto took = millis_since(start);
        CHECK(r.status == 200);
        CHECK(body_json(r) == json{{"waitedMillis", 200}});
        CHECK(took >= 190);
    }

    SECTION("cpuMicros and delayInMillis: a request that waits, then computes for a CPU time (the workload map's)")
    {
        for (std::string path : {"/cpu", "/cpu-offloaded"}) {
            INFO(path);
            auto start = clock_type::now();
            auto r = client.get(path + "?cpuMicros=20000&delayInMillis=100");
            auto took = millis_since(start);
            CHECK(r.status == 200);
            auto body = body_json(r);
            CHECK(body.at("cpuMicros") == 20000);
            CHECK(body.at("iterations").get<long long>() > 0);
            CHECK(took >= 115);  // 100 ms waited plus 20 ms of CPU, less the clocks' slack
        }
    }

    SECTION("/io waits its default 300 ms")
    {
        auto start = clock_type::now();
        auto r = client.get("/io");
        CHECK(body_json(r) == json{{"waitedMillis", 300}});
        CHECK(millis_since(start) >= 290);
    }

    SECTION("delayCallDepth=2 goes through the downstream client twice, and the delay happens at the bottom")
    {
        auto start = clock_type::now();
        auto r = client.get("/io?delayCallDepth=2&delayInMillis=150");
        auto took = millis_since(start);
        CHECK(r.status == 200);
        CHECK(body_json(r) == json{{"waitedMillis", 150}});
        CHECK(took >= 140);
        // Two calls back into this server: depth 1 and depth 0, both /epoch-millis.
        CHECK(eventually(
            [&] { return server.counters().requests(endpoints::endpoint::epoch_millis, http::status::ok) == 2; }));

        // Again, now over the downstream client's kept-alive connections.
        auto again = client.get("/epoch-millis?delayCallDepth=2&delayInMillis=0");
        CHECK(again.status == 200);
        CHECK(std::abs(body_json(again).get<long long>() - epoch_millis_now()) < 5000);
        CHECK(eventually(
            [&] { return server.counters().requests(endpoints::endpoint::epoch_millis, http::status::ok) == 5; }));
    }
}

TEMPLATE_TEST_CASE("movies storage options behave the same under every model", "[conformance]", EXECBENCH_EVERY_MODEL)
{
    SECTION("--movies-read-only validates and echoes a POST with ids but stores nothing")
    {
        server_settings settings;
        settings.movies_read_only = true;
        test_server server(TestType::value, settings);
        raw_client client(server.port());
        client.send(post_movies("application/json", movie("Echoed", "ReadOnly")));
        auto r = client.read_response();
        CHECK(r.status == 201);
        auto echoed = body_json(r);
        REQUIRE(echoed.size() == 1);
        CHECK(echoed[0].at("id").is_number_integer());
        CHECK(echoed[0].at("title") == "Echoed");
        CHECK(client.get("/movies?delayInMillis=0&directorLastName=ReadOnly").body == "[]");
        CHECK(body_json(client.get("/health")).at("moviesReadOnly") == true);

        client.send(post_movies("application/json", "{\"title\":\"\"}"));
        CHECK(client.read_response().status == 400);  // still validated
    }

    SECTION("--movies-db keeps posted movies across a restart")
    {
        auto dir = std::filesystem::temp_directory_path() /
                   ("execbench-conformance-" + model_name(TestType::value) + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        server_settings settings;
        settings.movies_db = (dir / "movies.db").string();
        {
            test_server server(TestType::value, settings);
            raw_client client(server.port());
            client.send(post_movies("application/json", movie("Kept", "Durable")));
            CHECK(client.read_response().status == 201);
        }
        {
            test_server server(TestType::value, settings);
            raw_client client(server.port());
            auto kept = body_json(client.get("/movies?delayInMillis=0&directorLastName=Durable"));
            REQUIRE(kept.size() == 1);
            CHECK(kept[0].at("title") == "Kept");
            // The seed is not added a second time.
            auto allen = body_json(client.get("/movies?delayInMillis=0&directorLastName=Allen"));
            std::set<std::string> titles;
            for (const auto& m : allen)
                titles.insert(m.at("title").get<std::string>());
            CHECK(titles.size() == allen.size());
        }
        std::filesystem::remove_all(dir);
    }
}
