// Hostile HTTP input over raw sockets, against every model: each case gets its precise answer, the connection
// ends as HTTP requires, nothing answers out of order, and a fresh connection is served afterwards.
//
// The case table is also the source of the hostile-input rows of docs/reliability.md: the last test here fails
// when the document and the table differ (EXECBENCH_WRITE_DOCS=1 rewrites the block).
#include "support/child_process.hpp"
#include "support/raw_client.hpp"
#include "support/server_fixture.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using namespace std::chrono_literals;

/// One response the case expects, in order; `body_has` (when set) must occur in its body, which ties the
/// response to the request that asked for it.
struct expected_response {
    unsigned status;
    std::string body_has = {};
};

/// How the connection must end once the expected responses are in.
enum class ending {
    kept_open,  ///< the framing was intact: the same connection serves another request
    closed,     ///< the server closes; nothing follows the last expected response
};

struct hostile_case {
    const char* input_class;  ///< the row group in docs/reliability.md
    const char* name;
    std::string bytes;
    std::vector<expected_response> responses;
    ending end;
    bool half_close = false;  ///< the client shuts down its sending side after the bytes
};

const std::string json_post = "POST /movies?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n";
const std::string chunked_get = "GET /io?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

std::string io(int millis, std::string_view extra = {})
{
    return "GET /io?delayInMillis=" + std::to_string(millis) + " HTTP/1.1\r\nHost: a\r\n" + std::string(extra) + "\r\n";
}

expected_response io_ok(int millis)
{
    return {200, "{\"waitedMillis\":" + std::to_string(millis) + "}"};
}

std::string many_headers(int n)
{
    std::string headers;
    for (int i = 0; i < n; ++i)
        headers += "X-H" + std::to_string(i) + ": v\r\n";
    return headers;
}

std::string many_params(int n)
{
    std::string query = "delayInMillis=0";
    for (int i = 0; i < n; ++i)
        query += "&p" + std::to_string(i) + "=1";
    return query;
}

const std::vector<hostile_case>& hostile_cases()
{
    static const std::vector<hostile_case> cases = {
        // request line
        {"request line", "no target or version", "GET\r\nHost: a\r\n\r\n", {{400}}, ending::closed},
        {"request line", "space in the target", "GET /io ?x HTTP/1.1\r\nHost: a\r\n\r\n", {{400}}, ending::closed},
        {"request line", "two spaces between parts", "GET  /io HTTP/1.1\r\nHost: a\r\n\r\n", {{400}}, ending::closed},
        {"request line", "lower-case HTTP name", "GET /io http/1.1\r\nHost: a\r\n\r\n", {{400}}, ending::closed},
        {"request line", "empty line only", "\r\n\r\n", {{400}}, ending::closed},
        {"request line",
         "binary garbage (a TLS ClientHello)",
         std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) + std::string(64, '\x00'),
         {{400}},
         ending::closed},
        {"request line",
         "target of 9000 bytes",
         "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n",
         {{431}},
         ending::closed},
        // methods
        {"method", "unknown method on a known path", io(0).replace(0, 3, "BREW"), {{405}}, ending::kept_open},
        {"method",
         "lower-case method (methods are case-sensitive)",
         io(0).replace(0, 3, "get"),
         {{405}},
         ending::kept_open},
        {"method", "character not allowed in a method", io(0).replace(0, 3, "G(T"), {{400}}, ending::closed},
        {"method",
         "PUT on /movies",
         "PUT /movies HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
         {{405}},
         ending::kept_open},
        // versions
        {"version", "HTTP/0.9 simple request", "GET /io\r\n", {{400}}, ending::closed},
        {"version", "HTTP/1.7", "GET /io HTTP/1.7\r\nHost: a\r\n\r\n", {{400}}, ending::closed},
        {"version",
         "HTTP/2.0 in an HTTP/1 request line",
         "GET /io HTTP/2.0\r\nHost: a\r\n\r\n",
         {{400}},
         ending::closed},
        {"version",
         "HTTP/1.0 without Host is served and closed",
         "GET /io?delayInMillis=0 HTTP/1.0\r\n\r\n",
         {io_ok(0)},
         ending::closed},
        // header syntax
        {"header syntax", "HTTP/1.1 without Host", "GET /io?delayInMillis=0 HTTP/1.1\r\n\r\n", {{400}}, ending::closed},
        {"header syntax", "two Host headers", io(0, "Host: b\r\n"), {{400}}, ending::closed},
        {"header syntax", "header line without colon", io(0, "X-No-Colon\r\n"), {{400}}, ending::closed},
        {"header syntax", "space before the colon", io(0, "X-A : b\r\n"), {{400}}, ending::closed},
        {"header syntax", "empty header name", io(0, ": b\r\n"), {{400}}, ending::closed},
        {"header syntax", "bare CR inside a value", io(0, "X-A: b\rc\r\n"), {{400}}, ending::closed},
        {"header syntax",
         "bare LF line endings",
         "GET /io?delayInMillis=0 HTTP/1.1\nHost: a\n\n",
         {{400}},
         ending::closed},
        {"header syntax", "NUL inside a value", io(0, std::string("X-A: b\0c\r\n", 10)), {{400}}, ending::closed},
        {"header syntax",
         "obs-fold continuation line (unfolded to a space)",
         io(0, "X-A: b\r\n c\r\n"),
         {io_ok(0)},
         ending::kept_open},
        {"header syntax",
         "non-UTF-8 bytes in a value (obs-text is allowed)",
         io(0, "X-A: \xff\xfe\x80\r\n"),
         {io_ok(0)},
         ending::kept_open},
        {"header syntax",
         "control character in a name",
         io(0, "X\x01"
               "A: b\r\n"),
         {{400}},
         ending::closed},
        // header size
        {"header size",
         "one header of 10000 bytes",
         io(0, "X-Big: " + std::string(10'000, 'x') + "\r\n"),
         {{431}},
         ending::closed},
        {"header size", "1000 small headers (over 8 KiB together)", io(0, many_headers(1000)), {{431}}, ending::closed},
        {"header size", "100 small headers (under 8 KiB)", io(0, many_headers(100)), {io_ok(0)}, ending::kept_open},
        // Content-Length
        {"content-length",
         "two equal Content-Length headers (one unambiguous length)",
         io(0, "Content-Length: 2\r\nContent-Length: 2\r\n") + "ab",
         {io_ok(0)},
         ending::kept_open},
        {"content-length",
         "two different Content-Length headers",
         json_post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n[]",
         {{400}},
         ending::closed},
        {"content-length",
         "Content-Length list \"2, 2\" (one unambiguous length)",
         io(0, "Content-Length: 2, 2\r\n") + "ab",
         {io_ok(0)},
         ending::kept_open},
        {"content-length",
         "Content-Length list \"2, 3\"",
         io(0, "Content-Length: 2, 3\r\n") + "abc",
         {{400}},
         ending::closed},
        {"content-length",
         "negative Content-Length",
         json_post + "Content-Length: -1\r\n\r\n",
         {{400}},
         ending::closed},
        {"content-length",
         "Content-Length with a plus sign",
         json_post + "Content-Length: +2\r\n\r\n[]",
         {{400}},
         ending::closed},
        {"content-length",
         "Content-Length that overflows 64 bits",
         json_post + "Content-Length: 99999999999999999999999\r\n\r\n",
         {{400}},
         ending::closed},
        {"content-length",
         "Content-Length over 1 MiB",
         json_post + "Content-Length: 2000000\r\n\r\n[",
         {{413}},
         ending::closed},
        // smuggling
        {"smuggling",
         "Content-Length and Transfer-Encoding: chunked",
         json_post + "Content-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"smuggling",
         "Transfer-Encoding: chunked then Content-Length",
         json_post + "Transfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"smuggling",
         "Transfer-Encoding not ending in chunked",
         json_post + "Transfer-Encoding: chunked, gzip\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"smuggling",
         "unknown Transfer-Encoding",
         json_post + "Transfer-Encoding: xchunked\r\n\r\n",
         {{400}},
         ending::closed},
        {"smuggling",
         "Transfer-Encoding: identity with a body",
         io(0, "Transfer-Encoding: identity\r\n") + io(5),
         {{400}},
         ending::closed},
        {"smuggling",
         "Transfer-Encoding in an HTTP/1.0 request",
         "POST /movies HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
         "2\r\n[]\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"smuggling",
         "GET smuggling a second request in a Content-Length body",
         io(0, "Content-Length: " + std::to_string(io(5).size()) + "\r\n") + io(5),
         {io_ok(0)},
         ending::kept_open},
        // chunked bodies
        {"chunked body",
         "well-formed chunked body with an extension and a trailer",
         chunked_get + "2;ext=1\r\nab\r\n0\r\nX-Trailer: t\r\n\r\n",
         {io_ok(0)},
         ending::kept_open},
        {"chunked body", "chunk size not hex", chunked_get + "zz\r\nab\r\n0\r\n\r\n", {{400}}, ending::closed},
        {"chunked body", "negative chunk size", chunked_get + "-2\r\nab\r\n0\r\n\r\n", {{400}}, ending::closed},
        {"chunked body",
         "chunk size that overflows 64 bits",
         chunked_get + "1ffffffffffffffff\r\nab\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"chunked body", "chunk longer than its size", chunked_get + "2\r\nabc\r\n0\r\n\r\n", {{400}}, ending::closed},
        {"chunked body",
         "chunk size line without CRLF",
         chunked_get + "2 x\r\nab\r\n0\r\n\r\n",
         {{400}},
         ending::closed},
        {"chunked body",
         "trailer line without colon",
         chunked_get + "2\r\nab\r\n0\r\nbad trailer\r\n\r\n",
         {{400}},
         ending::closed},
        {"chunked body", "one chunk declared over 1 MiB", chunked_get + "100001\r\na", {{413}}, ending::closed},
        {"chunked body",
         "chunks adding up to over 1 MiB",
         chunked_get + "1\r\na\r\n100000\r\na",
         {{413}},
         ending::closed},
        // body length
        {"body length",
         "body shorter than declared, then the client half-closes",
         json_post + "Content-Length: 100\r\n\r\n[",
         {},
         ending::closed,
         true},
        {"body length",
         "body shorter than declared, then silence (header timeout)",
         json_post + "Content-Length: 100\r\n\r\n[",
         {},
         ending::closed},
        {"body length",
         "body longer than declared: the rest is the next request",
         io(0, "Content-Length: 2\r\n") + "abGARBAGE\r\n\r\n",
         {io_ok(0), {400}},
         ending::closed},
        {"body length",
         "body on a GET with Content-Length",
         io(0, "Content-Length: 3\r\n") + "abc",
         {io_ok(0)},
         ending::kept_open},
        // query strings
        {"query",
         "bad percent-encoding %zz",
         "GET /io?delayInMillis=%zz HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "truncated percent-encoding %4",
         "GET /io?delayInMillis=1%4 HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "lone % at the end",
         "GET /io?delayInMillis=0% HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "percent-encoded NUL in an integer",
         "GET /io?delayInMillis=1%00 HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "percent-encoded invalid UTF-8",
         "GET /movies?directorLastName=%FF%FE HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "overlong UTF-8 encoding of '/'",
         "GET /movies?directorLastName=%C0%AF&delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "raw non-UTF-8 byte in the target",
         "GET /io?x=\xff HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::closed},
        {"query",
         "parameter given twice",
         "GET /io?delayInMillis=1&delayInMillis=2 HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "33 parameters (over the limit of 32)",
         "GET /io?" + many_params(32) + " HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "value of 7000 bytes",
         "GET /movies?directorLastName=" + std::string(7000, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query",
         "integer that overflows 64 bits",
         "GET /io?delayInMillis=99999999999999999999999 HTTP/1.1\r\nHost: a\r\n\r\n",
         {{400}},
         ending::kept_open},
        {"query", "empty parameter name", "GET /io?=1 HTTP/1.1\r\nHost: a\r\n\r\n", {{400}}, ending::kept_open},
        // paths
        {"path", "dot-dot traversal", "GET /../../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n", {{404}}, ending::kept_open},
        {"path",
         "percent-encoded traversal",
         "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n",
         {{404}},
         ending::kept_open},
        {"path",
         "traversal behind a real path",
         "GET /movies/../../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n",
         {{404}},
         ending::kept_open},
        {"path",
         "absolute-form target to another host",
         "GET http://example.com/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n",
         {{404}},
         ending::kept_open},
        {"path", "asterisk-form target", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", {{404}}, ending::kept_open},
        // pipelining
        {"pipelining",
         "three good requests in one write",
         io(30) + io(0) + io(10),
         {io_ok(30), io_ok(0), io_ok(10)},
         ending::kept_open},
        {"pipelining",
         "good, 404, 405, good",
         io(20) + "GET /nope HTTP/1.1\r\nHost: a\r\n\r\n" + "DELETE /io HTTP/1.1\r\nHost: a\r\n\r\n" + io(3),
         {io_ok(20), {404}, {405}, io_ok(3)},
         ending::kept_open},
        {"pipelining",
         "good, malformed, good: the third is never answered",
         io(20) + "GET\r\n\r\n" + io(4),
         {io_ok(20), {400}},
         ending::closed},
        {"pipelining",
         "good, then Connection: close, then good",
         io(10) + io(2, "Connection: close\r\n") + io(4),
         {io_ok(10), io_ok(2)},
         ending::closed},
        {"pipelining",
         "good, then a head over 8 KiB",
         io(10) + io(0, "X-Big: " + std::string(9000, 'x') + "\r\n"),
         {io_ok(10), {431}},
         ending::closed},
    };
    return cases;
}

std::string describe(const std::vector<expected_response>& responses, ending end)
{
    std::string text;
    for (const auto& r : responses)
        text += std::to_string(r.status) + ", ";
    if (responses.empty())
        text += "no response, ";
    text += end == ending::closed ? "closed" : "kept open";
    return text;
}

// Runs one case on a fresh connection and checks everything the case promises.
void run_case(std::uint16_t port, const hostile_case& c)
{
    INFO("case: " << c.input_class << " / " << c.name);
    raw_client client(port);
    client.send(c.bytes);
    if (c.half_close)
        client.shutdown_send();
    for (std::size_t i = 0; i < c.responses.size(); ++i) {
        INFO("response " << i);
        auto r = client.read_response(5s);
        CHECK(r.status == c.responses[i].status);
        CHECK(r.has_header("Content-Length"));
        if (!c.responses[i].body_has.empty())
            CHECK(r.body.find(c.responses[i].body_has) != std::string::npos);
    }
    if (c.end == ending::closed) {
        // Whatever else arrives before the close would be an answer nobody asked for.
        auto rest = client.read_until_close(5s);
        CHECK(rest.empty());
    } else {
        // Still in step: the next answer belongs to the next request.
        auto r = client.get("/io?delayInMillis=7", {}, 5s);
        CHECK(r.status == 200);
        CHECK(r.body == "{\"waitedMillis\":7}");
    }
    raw_client fresh(port);
    CHECK(fresh.get("/io?delayInMillis=0", {}, 5s).status == 200);
}

server::options hostile_options(models::model m)
{
    server::options opts;
    opts.model = m;
    opts.threads = m == models::model::pool ? 4 : 1;
    opts.cpu_threads = 1;
    // Cases that leave a message incomplete end at the header timeout; one second keeps the suite quick.
    opts.timeouts.header = 1s;
    return opts;
}

}  // namespace

TEMPLATE_TEST_CASE("hostile input gets precise answers, in order, and the server keeps serving", "[hostile]",
                   EXECBENCH_EVERY_MODEL)
{
    option_server server(hostile_options(TestType::value));
    for (const auto& c : hostile_cases()) {
        try {
            run_case(server.port(), c);
        } catch (const std::runtime_error& e) {
            // A timeout names what it waited for; the other cases still run.
            FAIL_CHECK(c.input_class << " / " << c.name << ": " << e.what());
        }
    }
}

TEMPLATE_TEST_CASE("a hostile client on one connection does not disturb a bystander's pipelined requests", "[hostile]",
                   EXECBENCH_EVERY_MODEL)
{
    option_server server(hostile_options(TestType::value));
    raw_client bystander(server.port());
    // Twenty requests in one write, each asking for a different wait, answered while attackers come and go.
    std::string pipeline;
    for (int i = 0; i < 20; ++i)
        pipeline += io(i);
    bystander.send(pipeline);
    for (const auto& c : hostile_cases()) {
        if (c.end != ending::closed || c.half_close || c.responses.empty())
            continue;
        INFO("case: " << c.input_class << " / " << c.name);
        raw_client attacker(server.port());
        attacker.send(c.bytes);
        auto r = attacker.read_response(5s);
        INFO("body: " << r.body);
        CHECK(r.status == c.responses.front().status);
    }
    for (int i = 0; i < 20; ++i) {
        auto r = bystander.read_response(5s);
        CHECK(r.status == 200);
        CHECK(r.body == "{\"waitedMillis\":" + std::to_string(i) + "}");
    }
}

namespace {

const char* docs_begin = "<!-- hostile-input cases: generated from tests/models/hostile_input_test.cpp -->";
const char* docs_end = "<!-- end of hostile-input cases -->";

std::string escape_cell(std::string text)
{
    std::string out;
    for (char ch : text)
        out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

std::string generated_block()
{
    std::ostringstream block;
    block << docs_begin << "\n\n";
    block << "| input class | case | expected (every model) | observed | test |\n";
    block << "|---|---|---|---|---|\n";
    for (const auto& c : hostile_cases())
        block << "| " << c.input_class << " | " << escape_cell(c.name) << " | " << describe(c.responses, c.end)
              << " | as expected: " << joined_model_names() << " | `hostile input gets precise answers, in order, and the server "
                 "keeps serving` |\n";
    block << "\n" << docs_end;
    return block.str();
}

}  // namespace

TEST_CASE("docs/reliability.md lists exactly the hostile-input cases this suite runs", "[hostile][docs]")
{
    const std::string path = std::string(EXECBENCH_SOURCE_DIR) + "/docs/reliability.md";
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto begin = text.find(docs_begin);
    auto end = text.find(docs_end);
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    end += std::string_view(docs_end).size();
    auto current = text.substr(begin, end - begin);
    auto wanted = generated_block();
    if (current != wanted && std::getenv("EXECBENCH_WRITE_DOCS") != nullptr) {
        text.replace(begin, end - begin, wanted);
        std::ofstream(path, std::ios::binary) << text;
        current = wanted;
    }
    INFO("regenerate with: EXECBENCH_WRITE_DOCS=1 execbench_integration_tests '[docs]'");
    CHECK(current == wanted);
}
