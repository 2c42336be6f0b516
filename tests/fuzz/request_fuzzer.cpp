// libFuzzer target: arbitrary bytes through everything a request touches before a model does its waiting.
//
// The bytes are parsed as an HTTP/1 request (in two pieces, split where the first byte says, as a socket might
// deliver them); a request that parses is routed and validated by the real endpoint app (with an in-memory movie
// store, writes echoed), its response serialised; a parse error is classified and its error response built. The
// body is also fed to the movie validator directly and the target to the query parser, so JSON and parameter
// validation are fuzzed even when the HTTP framing is not valid.
#include "execbench/endpoints/app.hpp"
#include "execbench/endpoints/movie_store.hpp"
#include "execbench/endpoints/movies.hpp"
#include "execbench/endpoints/params.hpp"
#include "execbench/endpoints/request_counters.hpp"
#include "execbench/http/failure.hpp"
#include "execbench/http/request_parser.hpp"
#include "execbench/http/response.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using namespace execbench;

struct fixture {
    endpoints::movie_store movies{{"", true}};
    endpoints::request_counters counters;
    endpoints::app app{endpoints::server_info{.model = "loop",
                                              .threads = 1,
                                              .cpu_threads = 1,
                                              .queue = 100,
                                              .fiber_stack_kb = 128,
                                              .downstream = "http://127.0.0.1:1",
                                              .address = "127.0.0.1",
                                              .movies_read_only = true},
                       movies, counters};
    http::request_storage storage;
    endpoints::plan plan;
    http::response response;
    std::string out;
};

fixture& shared_fixture()
{
    static fixture f;
    return f;
}

// Feeds `bytes` to a fresh parser in two pieces; returns the parser's verdict (need_more when incomplete).
boost::beast::error_code parse(std::string_view bytes, std::size_t split, http::request_storage& storage)
{
    namespace be = boost::beast::http;
    http::request_parser parser(storage);
    parser.eager(true);
    std::string pending(bytes.substr(0, split));
    std::string_view rest = bytes.substr(split);
    boost::beast::error_code ec;
    for (;;) {
        // Never an empty buffer: Beast's stream reads never offer one (and basic_parser does pointer arithmetic
        // on its null data pointer).
        std::size_t used = 0;
        if (!pending.empty()) {
            used = parser.put(boost::asio::buffer(pending), ec);
            pending.erase(0, used);
            if (parser.is_done())
                return {};
            if (ec && ec != be::error::need_more)
                return ec;
        }
        if (rest.empty()) {
            if (used == 0) {
                parser.put_eof(ec);
                return ec ? ec : boost::beast::error_code(be::error::need_more);
            }
            continue;
        }
        pending.append(rest);
        rest = {};
        ec = {};
    }
}

void exercise_request(fixture& f, std::string_view bytes, std::size_t split)
{
    auto ec = parse(bytes, split, f.storage);
    if (ec) {
        if (ec == boost::beast::http::error::need_more)
            return;
        std::string_view message;
        auto failure = http::classify_parse_error(ec, message);
        http::make_error(failure, message, f.response);
        f.out.clear();
        http::serialize(f.response, {.keep_alive = false}, f.out);
        return;
    }
    auto req = f.storage.view();
    if (f.app.plan(req, f.plan, f.response)) {
        switch (f.plan.what) {
        case endpoints::work::respond:
            if (f.plan.route != endpoints::endpoint::metrics)  // /metrics reads /proc: slow and not input-driven
                f.app.respond(f.plan, f.response);
            break;
        case endpoints::work::compute:
        case endpoints::work::compute_offloaded:
            // The chain's cost is bounded by the validated iteration count; a short chain checks the response.
            f.app.respond(f.plan, endpoints::computation{endpoints::sha256_chain(1), 1}, f.response);
            break;
        case endpoints::work::stream:
            f.out.clear();
            f.app.stream_event(f.plan, 0, {}, f.out);
            f.app.stream_event(f.plan, f.plan.stream.count - 1, {}, f.out);
            break;
        case endpoints::work::database: break;  // the fuzzer's app keeps movies in SQLite
        }
        if (f.plan.calls_downstream()) {
            std::string target;
            f.app.downstream_target(f.plan, target);
        }
    }
    f.out.clear();
    http::serialize(f.response, {req.keep_alive, req.http10}, f.out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto& f = shared_fixture();
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);

    exercise_request(f, bytes, split);

    // The validators on their own, whatever the framing said.
    (void)endpoints::parse_movies(bytes);
    auto params = endpoints::query_params::parse(bytes);
    if (params) {
        (void)endpoints::int_param(*params, "delayInMillis", 0, 0, 60'000);
        (void)endpoints::string_param(*params, "directorLastName");
        auto copy = *params;  // the copy rebases its views into its own decoded buffer
        (void)endpoints::string_param(copy, "directorLastName");
    }
    return 0;
}
