#include "execbench/load/scenario/scenario.hpp"

#include "execbench/load/scenario/overrides.hpp"
#include "execbench/load/scenario/scenario_json.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

namespace {

std::filesystem::path temp_dir()
{
    auto dir = std::filesystem::temp_directory_path() / ("execbench-scenario-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "data");
    std::ofstream(dir / "data" / "body.json") << R"({"title": "x"})";
    return dir;
}

execbench::result<scenario> parse(const std::string& text)
{
    static auto dir = temp_dir();
    return parse_scenario(text, "scenarios/test.json", dir);
}

const char* minimal =
    R"({"description": "d", "requests": [{"path": "/io"}], "load": {"shape": "burst", "requests": 10}})";

}  // namespace

TEST_CASE("a complete scenario parses into its fields", "[load]")
{
    auto s = parse(R"({
      "description": "mix of four",
      "suites": ["default", "smoke"],
      "requests": [
        {"method": "GET", "path": "/movies?directorLastName=Allen", "weight": 3, "headers": {"Accept": "application/json"}},
        {"method": "POST", "path": "/movies", "body_file": "data/body.json"}
      ],
      "load": {"shape": "open", "rate": 1500.5, "connections": 300, "duration": "2m", "requests_per_connection": 10},
      "warmup": 10, "trials": 3, "pause": "500ms", "timeout": "30s", "connect_timeout": "2s",
      "server": {"downstream": "separate", "downstream_model": "loop", "database": "postgresql",
                 "options": {"threads": 4, "queue": "100"}}
    })");
    REQUIRE(s.ok());
    CHECK(s->name == "test");
    CHECK(s->suites == std::vector<std::string>{"default", "smoke"});
    REQUIRE(s->mix.size() == 2);
    CHECK(s->mix[0].weight == 3);
    CHECK(s->mix[0].headers.front().first == "Accept");
    CHECK(s->mix[1].body == R"({"title": "x"})");
    // A JSON body file without a Content-Type gets application/json.
    CHECK(s->mix[1].headers.front().second == "application/json");
    CHECK(s->load.kind == shape::open);
    CHECK(s->load.rate == 1500.5);
    CHECK(s->load.connections == 300);
    CHECK(s->load.length == 120s);
    CHECK(s->load.requests_per_connection == 10);
    CHECK(s->warmup == 10s);
    CHECK(s->trials == 3);
    CHECK(s->pause == 500ms);
    CHECK(s->timeout == 30s);
    CHECK(s->connect_timeout == 2s);
    CHECK(s->server.downstream == "separate");
    CHECK(s->server.database == "postgresql");
    CHECK(s->server.options.at("threads") == "4");
    CHECK(s->server.options.at("queue") == "100");
}

TEST_CASE("every scenario mistake names the file, the field and what was expected", "[load]")
{
    struct bad_case {
        std::string json;
        std::string field;
        std::string expected;
    };
    const std::string req = R"("requests": [{"path": "/io"}])";
    const std::string burst = R"("load": {"shape": "burst", "requests": 10})";
    std::vector<bad_case> cases{
        {"[1]", "", "expected a JSON object at the top level"},
        {"{not json", "", "not valid JSON"},
        {R"({"requests": [{"path": "/"}], )" + burst + "}", "description", "missing"},
        {R"({"description": "", )" + req + ", " + burst + "}", "description", "non-empty string"},
        {R"({"description": "d", "extra": 1, )" + req + ", " + burst + "}", "extra", "unknown field"},
        {R"({"description": "d", )" + burst + "}", "requests", "missing"},
        {R"({"description": "d", "requests": [], )" + burst + "}", "requests", "non-empty array"},
        {R"({"description": "d", "requests": [{"method": "get", "path": "/"}], )" + burst + "}", "requests[0].method",
         "upper-case HTTP method"},
        {R"({"description": "d", "requests": [{"method": "GET"}], )" + burst + "}", "requests[0].path", "missing"},
        {R"({"description": "d", "requests": [{"path": "io"}], )" + burst + "}", "requests[0].path",
         "starting with '/'"},
        {R"({"description": "d", "requests": [{"path": "/", "weight": 0}], )" + burst + "}", "requests[0].weight",
         "integer in 1..1000"},
        {R"({"description": "d", "requests": [{"path": "/", "weight": 1.5}], )" + burst + "}", "requests[0].weight",
         "integer in 1..1000"},
        {R"({"description": "d", "requests": [{"path": "/", "headers": ["x"]}], )" + burst + "}", "requests[0].headers",
         "object of header names"},
        {R"({"description": "d", "requests": [{"path": "/", "headers": {"X": 1}}], )" + burst + "}",
         "requests[0].headers.X", "single-line string"},
        {R"({"description": "d", "requests": [{"path": "/", "headers": {"a b": "1"}}], )" + burst + "}",
         "requests[0].headers.a b", "header name"},
        {R"({"description": "d", "requests": [{"path": "/", "body_file": "data/missing.json"}], )" + burst + "}",
         "requests[0].body_file", "cannot read"},
        {R"({"description": "d", "requests": [{"path": "/", "bdy": 1}], )" + burst + "}", "requests[0].bdy",
         "unknown field"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "burst", "requests": 10, "requests_per_connection": 0}})",
         "load.requests_per_connection", "integer in 1..1000000"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "burst", "requests": 10, "pipeline": 4}})",
         "load.pipeline", "not used by shape burst"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "closed", "connections": 2, "duration": "1s", "pipeline": 0}})",
         "load.pipeline", "integer in 1..1024"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "closed", "connections": 2, "duration": "1s", "pipeline": 4, )"
             R"("requests_per_connection": 10}})",
         "load.pipeline", "not with requests_per_connection"},
        {R"({"description": "d", "requests": [{"path": "/", "from": "soon"}], )" + burst + "}", "requests[0].from",
         "is not a duration"},
        {R"({"description": "d", "requests": [{"path": "/", "until": -1}], )" + burst + "}", "requests[0].until",
         "non-negative number of seconds"},
        {R"({"description": "d", "requests": [{"path": "/", "from": "5s", "until": "5s"}], )" + burst + "}",
         "requests[0].until", "a time after from (5s)"},
        {R"({"description": "d", "requests": [{"path": "/", "from": "5s"}], )" + burst + "}", "requests",
         "no request is in the mix from 0s on"},
        {R"({"description": "d", "requests": [{"path": "/a", "until": "5s"}, {"path": "/b", "from": "6s"}], )" + burst +
             "}",
         "requests", "no request is in the mix from 5s on"},
        {R"({"description": "d", "requests": [{"path": "/a", "until": "5s"}, {"path": "/b", "until": "8s"}], )" +
             burst + "}",
         "requests", "no request is in the mix from 8s on; leave one request without \"until\""},
        {R"({"description": "d", )" + req + ", " + burst +
             R"(, "background": {"requests": [{"path": "/", "until": "1s"}], "load": {"shape": "burst", "requests": 1}}})",
         "background.requests", "no request is in the mix from 1s on"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "burst", "requests": 5, "preconnect": "no"}})",
         "load.preconnect", "expected true"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "ramp", "users": 5, "duration": "1s", "preconnect": false}})",
         "load.preconnect", "not used by shape ramp"},
        {R"({"description": "d", )" + req + "}", "load", "missing"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "tls": "yes"})", "tls", "expected true or false"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "tls_resume": false})", "tls_resume",
         "only with \"tls\": true"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "tls_key": "rsa2048"})", "tls_key",
         "only with \"tls\": true"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "tls": true, "tls_key": "ed25519"})", "tls_key",
         "'ed25519' is no key type; expected one of p256, rsa2048, rsa4096"},
        {R"({"description": "d", )" + req + ", " + burst +
             R"(, "background": {"requests": [{"path": "/"}], "load": {"shape": "ramp", "users": 2, "duration": "1s"}}})",
         "background.load.shape", "expected burst, closed or open"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 9, "duration": 1, "rate": {"capacity_of": "c"}}})",
         "load.rate", "expected {\"capacity_of\": capacity scenario, \"times\": multiple}"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 9, "duration": 1, "rate": {"capacity_of": "c", "times": 0}}})",
         "load.rate.times", "a number in (0, 100]"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 9, "duration": 1, "rate": {"capacity_of": "", "times": 2}}})",
         "load.rate.capacity_of", "non-empty string"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 9, "duration": 1, "rate": {"of": "c", "times": 2}}})",
         "load.rate.of", "unknown field"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 9, "duration": 1, "rate": "fast"}})",
         "load.rate", "or {\"capacity_of\""},
        {R"({"description": "d", )" + req + R"(, "load": {"requests": 1}})", "load.shape", "missing"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "wave"}})", "load.shape",
         "one of burst, closed, open, ramp"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "burst"}})", "load.requests", "missing"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "burst", "requests": 5, "connections": 6}})",
         "load.connections", "at most as many connections as requests"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "burst", "requests": 5, "rate": 6}})", "load.rate",
         "not used by shape burst"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "closed", "duration": "1s"}})", "load.connections",
         "missing"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "closed", "connections": 2}})", "load.duration",
         "missing"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "closed", "connections": 2, "duration": "soon"}})",
         "load.duration", "is not a duration"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "closed", "connections": 2, "duration": "1s", "think": {"min": "2s", "max": "1s"}}})",
         "load.think", "min <= max"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "closed", "connections": 2, "duration": "1s", "think": {"min": "2s"}}})",
         "load.think", "{\"min\": duration, \"max\": duration}"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "open", "connections": 2, "duration": "1s"}})",
         "load.rate", "missing"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "open", "connections": 2, "duration": "1s", "rate": -3}})",
         "load.rate", "requests per second"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "ramp", "duration": "1s"}})", "load.users",
         "missing"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "ramp", "users": 5}})", "load.duration", "missing"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "ramp", "users": 5, "duration": "1s", "profile": "zigzag"}})",
         "load.profile", "one of stepped, smooth, sharp, stages"},
        {R"({"description": "d", )" + req + R"(, "load": {"shape": "ramp", "stages": [{"duration": "1s"}]}})",
         "load.stages[0]", "{\"duration\": duration, \"target\": users}"},
        {R"({"description": "d", )" + req +
             R"(, "load": {"shape": "ramp", "users": 5, "duration": "1s", "connections": 5}})",
         "load.connections", "not used by shape ramp"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "trials": 0})", "trials", "integer in 1..1000"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "timeout": "0s"})", "timeout", "greater than 0"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "warmup": true})", "warmup", "duration such as"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "suites": "reactive"})", "suites",
         "array of suite names"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "server": {"downstream": "elsewhere"}})",
         "server.downstream", "\"self\" or \"separate\""},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "server": {"downstream_model": "actor"}})",
         "server.downstream_model", "one of pool, fiber, loop, coro"},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "server": {"database": "mysql"}})", "server.database",
         "\"sqlite\", \"sqlite-file\" or \"postgresql\""},
        {R"({"description": "d", )" + req + ", " + burst + R"(, "server": {"options": {"x": [1]}}})",
         "server.options.x", "string, number or boolean"},
        {R"({"description": "d", )" + req + ", " + burst +
             R"(, "background": {"load": {"shape": "burst", "requests": 1}}})",
         "background.requests", "missing"},
    };
    for (const auto& c : cases) {
        INFO(c.json);
        auto s = parse(c.json);
        REQUIRE_FALSE(s.ok());
        const auto& msg = s.err().message;
        CHECK_THAT(msg, Catch::StartsWith("scenarios/test.json: "));
        if (!c.field.empty())
            CHECK_THAT(msg, Catch::Contains(": " + c.field + ": "));
        CHECK_THAT(msg, Catch::Contains(c.expected));
    }
}

TEST_CASE("a request may join or leave the mix at a time, and a burst may skip connecting first", "[load]")
{
    auto s = parse(R"({
      "description": "slow dependency",
      "requests": [
        {"path": "/fast", "until": "10s"},
        {"path": "/slow", "from": "10s", "weight": 2},
        {"path": "/always"}
      ],
      "load": {"shape": "burst", "requests": 100, "preconnect": false}
    })");
    REQUIRE(s.ok());
    REQUIRE(s->mix.size() == 3);
    CHECK(s->mix[0].from == 0s);
    CHECK(s->mix[0].until == std::optional<duration>(10s));
    CHECK(s->mix[1].from == 10s);
    CHECK_FALSE(s->mix[1].until);
    CHECK_FALSE(s->mix[2].until);
    CHECK_FALSE(s->load.preconnect);
    CHECK(parse(minimal)->load.preconnect);

    // A mix is whole when, at every moment from 0 on, some request is in it.
    auto at = [](duration from, std::optional<duration> until) {
        request_spec r;
        r.from = from;
        r.until = until;
        return r;
    };
    CHECK_FALSE(mix_gap({at(0s, 5s), at(5s, std::nullopt)}));
    CHECK_FALSE(mix_gap({at(3s, 8s), at(0s, 4s), at(7s, std::nullopt)}));
    CHECK(mix_gap({at(0s, 4s), at(3s, 8s)}) == std::optional<duration>(8s));
    CHECK(mix_gap({at(1s, std::nullopt)}) == std::optional<duration>(0s));
}

TEST_CASE("command-line flags override a scenario and are validated", "[load]")
{
    auto s = *parse(minimal);
    overrides o;
    o.path = "/epoch-millis";
    o.headers = {"X-Test: yes"};
    o.requests = 4;
    o.trials = 2;
    o.timeout = "2s";
    REQUIRE(apply_overrides(s, o).ok());
    CHECK(s.mix.size() == 1);
    CHECK(s.mix[0].path == "/epoch-millis");
    CHECK(s.mix[0].headers.back() == std::pair<std::string, std::string>{"X-Test", "yes"});
    CHECK(s.load.requests == 4);
    CHECK(s.trials == 2);
    CHECK(s.timeout == 2s);

    overrides shape_change;
    shape_change.shape = "open";
    shape_change.connections = 5;
    shape_change.duration = "1s";
    auto r = apply_overrides(s, shape_change);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.err().message, Catch::StartsWith("--rate: missing"));
    shape_change.rate = 100;
    CHECK(apply_overrides(s, shape_change).ok());

    overrides pipelined;  // the open shape now
    pipelined.pipeline = 16;
    REQUIRE(apply_overrides(s, pipelined).ok());
    CHECK(s.load.pipeline == 16);
    pipelined.pipeline = 0;
    CHECK_THAT(apply_overrides(s, pipelined).err().message, Catch::StartsWith("--pipeline: expected"));

    overrides churn;  // --reconnect-every and --tls-resume
    churn.reconnect_every = 1;
    churn.tls_resume = "off";
    churn.pipeline = 1;
    REQUIRE(apply_overrides(s, churn).ok());
    CHECK(s.load.requests_per_connection == 1);
    CHECK_FALSE(s.tls_resume);
    churn.reconnect_every = 0;
    CHECK_THAT(apply_overrides(s, churn).err().message, Catch::StartsWith("--reconnect-every: expected"));
    churn.reconnect_every = 5;
    churn.tls_resume = "maybe";
    CHECK_THAT(apply_overrides(s, churn).err().message, Catch::StartsWith("--tls-resume: 'maybe'"));

    overrides bad;
    bad.think = "3s..1s";
    CHECK_THAT(apply_overrides(s, bad).err().message, Catch::Contains("--think"));
    overrides bad_header;
    bad_header.headers = {"no colon"};
    CHECK_THAT(apply_overrides(s, bad_header).err().message, Catch::Contains("--header"));
    overrides bad_duration;
    bad_duration.shape = "closed";
    bad_duration.duration = "forever";
    CHECK_THAT(apply_overrides(s, bad_duration).err().message, Catch::Contains("--duration: 'forever'"));
}

TEST_CASE("a load flag the shape does not use is an error, or implied on an ad-hoc run", "[load][cli]")
{
    SECTION("a scenario's shape is what its file says")
    {
        auto s = *parse(minimal);  // burst
        overrides o;
        o.duration = "5s";
        auto r = apply_overrides(s, o);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().message == "--duration: not used by shape burst; add --shape closed, open or ramp");
        overrides rate;
        rate.rate = 100;
        CHECK(apply_overrides(s, rate).err().message == "--rate: not used by shape burst; add --shape open");
        overrides think;
        think.think = "1s";
        think.shape = "open";
        think.connections = 2;
        think.rate = 10;
        think.duration = "1s";
        CHECK(apply_overrides(s, think).err().message == "--think: not used by shape open; add --shape closed or ramp");
    }
    SECTION("--rate alone on an ad-hoc run is the open shape, and says so")
    {
        auto s = ad_hoc_scenario();
        CHECK(s.mix.front().path == "/epoch-millis");
        overrides o;
        o.rate = 200;
        o.connections = 2;
        o.duration = "1s";
        auto r = apply_overrides(s, o);
        REQUIRE(r.ok());
        CHECK(s.load.kind == shape::open);
        CHECK(s.load.rate == 200);
        REQUIRE(r->size() == 1);
        CHECK_THAT(r->front(), Catch::Contains("--rate implies --shape open"));
    }
    SECTION("--requests alone on an ad-hoc run is a burst")
    {
        auto s = ad_hoc_scenario();
        overrides o;
        o.requests = 20;
        REQUIRE(apply_overrides(s, o).ok());
        CHECK(s.load.kind == shape::burst);
        CHECK(s.load.requests == 20);
    }
    SECTION("an explicit --shape wins over the implication")
    {
        auto s = ad_hoc_scenario();
        overrides o;
        o.rate = 200;
        o.shape = "closed";
        CHECK(apply_overrides(s, o).err().message == "--rate: not used by shape closed; add --shape open");
    }
}

TEST_CASE("suite-wide overrides: an error when no scenario uses one, a note naming those it skips", "[load][cli]")
{
    auto burst = *parse(minimal);
    auto closed = *parse(R"({"description": "d", "requests": [{"path": "/io"}],
                            "load": {"shape": "closed", "connections": 2, "duration": "10s"}})");
    closed.name = "closed-one";
    overrides o;
    o.duration = "2s";
    auto none = check_suite_overrides({burst}, o);
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.err().message, Catch::StartsWith("--duration: not used by any selected scenario"));
    auto some = check_suite_overrides({burst, closed}, o);
    REQUIRE(some.ok());
    REQUIRE(some->size() == 1);
    CHECK_THAT(some->front(), Catch::Contains("--duration applies to 1 of 2") && Catch::Contains("test (burst)"));
    CHECK(used_by(burst, o).duration == std::nullopt);
    CHECK(used_by(closed, o).duration == "2s");
    overrides bad;
    bad.warmup = "5sec";
    CHECK_THAT(check_suite_overrides({burst, closed}, bad).err().message, Catch::StartsWith("--warmup: '5sec'"));
}

TEST_CASE("explicit ramp stages set the length and the peak", "[load]")
{
    auto s = parse(R"({"description": "d", "requests": [{"path": "/"}],
        "load": {"shape": "ramp", "stages": [{"duration": "2s", "target": 40}, {"duration": 1, "target": 10}]}})");
    REQUIRE(s.ok());
    CHECK(s->load.length == 3s);
    CHECK(s->load.users == 40);
    CHECK(s->load.think_min == 1s);  // paced users by default, as in the study
    CHECK(s->load.think_max == 3s);
    CHECK(connections_needed(*s) == 40);
}

TEST_CASE("an open load's rate may be a multiple of each arm's capacity, resolved by a suite", "[load]")
{
    auto s = parse(R"({"description": "d", "requests": [{"path": "/cpu"}],
        "load": {"shape": "open", "connections": 500, "duration": "5s",
                 "rate": {"capacity_of": "capacity-cpu", "times": 1.5}}})");
    REQUIRE(s.ok());
    REQUIRE(s->load.rate_from);
    CHECK(s->load.rate_from->capacity_of == "capacity-cpu");
    CHECK(s->load.rate_from->times == 1.5);
    CHECK(s->load.rate == 0);

    // --rate replaces it.
    overrides o;
    o.rate = 700;
    REQUIRE(apply_overrides(*s, o).ok());
    CHECK(s->load.rate == 700);
    CHECK_FALSE(s->load.rate_from);
}

TEST_CASE("a scenario may run over TLS, with or without session resumption", "[load]")
{
    auto req = std::string(R"("requests": [{"path": "/"}], "load": {"shape": "burst", "requests": 10})");
    auto plain = parse_scenario(R"({"description": "d", )" + req + "}", "scenarios/t.json", ".");
    REQUIRE(plain);
    CHECK_FALSE(plain->tls);
    CHECK(plain->tls_resume);
    auto tls = parse_scenario(R"({"description": "d", )" + req + R"(, "tls": true, "tls_resume": false})",
                              "scenarios/t.json", ".");
    REQUIRE(tls);
    CHECK(tls->tls);
    CHECK_FALSE(tls->tls_resume);
    CHECK(tls->tls_key == "p256");
    auto rsa = parse_scenario(R"({"description": "d", )" + req + R"(, "tls": true, "tls_key": "rsa2048"})",
                              "scenarios/t.json", ".");
    REQUIRE(rsa);
    CHECK(rsa->tls_key == "rsa2048");
    for (const auto* key : {"p256", "rsa2048", "rsa4096"}) {
        auto each = parse_scenario(R"({"description": "d", )" + req + R"(, "tls": true, "tls_key": ")" + key + R"("})",
                                   "scenarios/t.json", ".");
        REQUIRE(each);
        CHECK(each->tls_key == key);
    }
}

TEST_CASE("an open background may take its rate from each arm's capacity, as a storm beside measured clients", "[load]")
{
    auto s = parse_scenario(
        R"({"description": "d", "requests": [{"path": "/io"}],
            "load": {"shape": "open", "rate": 100, "connections": 10, "duration": "2s"},
            "background": {"requests": [{"path": "/"}],
                           "load": {"shape": "open", "rate": {"capacity_of": "c", "times": 2}, "connections": 50,
                                    "duration": "3s", "requests_per_connection": 1}}})",
        "scenarios/t.json", ".");
    REQUIRE(s);
    CHECK(takes_rate_from_capacity(*s));
    auto loads = loads_from_capacity(*s);
    REQUIRE(loads.size() == 1);
    CHECK(loads.front() == &s->background->load);
    CHECK(loads.front()->rate_from->times == 2);
    s->background->load.rate_from.reset();
    CHECK_FALSE(takes_rate_from_capacity(*s));
}

TEST_CASE("a scenario may speak HTTP/2 with streams, but not with pipelining, churn or a ramp's streams", "[load]")
{
    auto with = [](const std::string& load, const std::string& extra) {
        return parse(R"({"description": "d", "requests": [{"path": "/"}], "load": )" + load + extra + "}");
    };
    const std::string closed = R"({"shape": "closed", "connections": 2, "duration": "1s"})";
    auto plain = with(closed, "");
    REQUIRE(plain);
    CHECK(plain->protocol == http_protocol::http1_1);
    CHECK(plain->streams == 1);
    auto h2 = with(closed, R"(, "protocol": "h2", "streams": 10)");
    REQUIRE(h2);
    CHECK(h2->protocol == http_protocol::h2);
    CHECK(h2->streams == 10);
    CHECK(to_string(h2->protocol) == "h2");
    CHECK(parse_http_protocol("http/1.1") == http_protocol::http1_1);
    CHECK_FALSE(parse_http_protocol("h2c"));

    auto refused = [&](const std::string& load, const std::string& extra, const std::string& says) {
        auto r = with(load, extra);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::StartsWith("scenarios/test.json: ") && Catch::Contains(says));
    };
    refused(closed, R"(, "protocol": "h3")", "protocol: 'h3': expected \"http/1.1\" or \"h2\"");
    refused(closed, R"(, "streams": 10)", "streams: HTTP/2's concurrent streams per connection: only with");
    refused(closed, R"(, "protocol": "h2", "streams": 0)", "streams");
    refused(closed, R"(, "protocol": "h2", "streams": 5000)", "streams");
    refused(R"({"shape": "closed", "connections": 2, "duration": "1s", "pipeline": 4})", R"(, "protocol": "h2")",
            "load.pipeline: HTTP/1.1 pipelining, not with \"protocol\": \"h2\"");
    refused(R"({"shape": "closed", "connections": 2, "duration": "1s", "requests_per_connection": 5})",
            R"(, "protocol": "h2")", "load.requests_per_connection: not with \"protocol\": \"h2\"");
    refused(R"({"shape": "ramp", "users": 2, "duration": "1s"})", R"(, "protocol": "h2", "streams": 4)",
            "streams: a ramp's user sends one request at a time");
    // A ramp at one stream per user, and a burst with streams, are HTTP/2 loads like any other.
    CHECK(with(R"({"shape": "ramp", "users": 2, "duration": "1s"})", R"(, "protocol": "h2")"));
    CHECK(with(R"({"shape": "burst", "requests": 100, "connections": 2})", R"(, "protocol": "h2", "streams": 8)"));
}

TEST_CASE("the flags --http2 and --streams override a scenario, and --pipeline and --streams name what they need",
          "[load][cli]")
{
    auto s = ad_hoc_scenario();
    overrides o;
    o.http2 = true;
    o.streams = 10;
    REQUIRE(apply_overrides(s, o));
    CHECK(s.protocol == http_protocol::h2);
    CHECK(s.streams == 10);

    auto fails = [](overrides bad, const std::string& says) {
        auto t = ad_hoc_scenario();
        auto r = apply_overrides(t, bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.err().message, Catch::StartsWith(says));
    };
    overrides piped;
    piped.http2 = true;
    piped.pipeline = 4;
    fails(piped, "--pipeline: HTTP/1.1 pipelining, not with --http2; HTTP/2 carries several requests on a "
                 "connection at once with --streams N");
    overrides lone;
    lone.streams = 4;
    fails(lone, "--streams: HTTP/2's concurrent streams per connection: add --http2");
    overrides churn;
    churn.http2 = true;
    churn.reconnect_every = 1;
    fails(churn, "--reconnect-every: HTTP/1.1's churn");
    // A scenario that speaks h2 takes --streams without --http2.
    auto h2 = ad_hoc_scenario();
    h2.protocol = http_protocol::h2;
    overrides more;
    more.streams = 100;
    REQUIRE(apply_overrides(h2, more));
    CHECK(h2.streams == 100);
}
