#include "execbench/http2/server_session.hpp"

#include <catch2/catch.hpp>
#include <nghttp2/nghttp2.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

// The session layer fed by nghttp2's own client session in-process: real frames, no sockets.

namespace {

using execbench::http2::event;
using execbench::http2::goaway_reason;
using execbench::http2::server_session;

/// An HTTP/2 client in memory: what it sends is fed to a `server_session`, what the server writes back to it.
struct client {
    struct answer {
        std::string status;
        std::string body;
        bool closed = false;
    };

    explicit client(std::uint32_t initial_window = NGHTTP2_INITIAL_WINDOW_SIZE, bool auto_window = true)
    {
        nghttp2_session_callbacks* cb = nullptr;
        nghttp2_session_callbacks_new(&cb);
        nghttp2_session_callbacks_set_on_header_callback(
            cb, [](nghttp2_session*, const nghttp2_frame* f, const std::uint8_t* name, std::size_t namelen,
                   const std::uint8_t* value, std::size_t valuelen, std::uint8_t, void* self) {
                if (std::string_view(reinterpret_cast<const char*>(name), namelen) == ":status")
                    static_cast<client*>(self)->answers[f->hd.stream_id].status.assign(
                        reinterpret_cast<const char*>(value), valuelen);
                return 0;
            });
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
            cb, [](nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data, std::size_t len,
                   void* self) {
                static_cast<client*>(self)->answers[id].body.append(reinterpret_cast<const char*>(data), len);
                return 0;
            });
        nghttp2_session_callbacks_set_on_stream_close_callback(cb,
                                                               [](nghttp2_session*, std::int32_t id, std::uint32_t,
                                                                  void* self) {
                                                                   static_cast<client*>(self)->answers[id].closed = true;
                                                                   return 0;
                                                               });
        nghttp2_session_callbacks_set_on_frame_recv_callback(
            cb, [](nghttp2_session*, const nghttp2_frame* f, void* self) {
                if (f->hd.type == NGHTTP2_GOAWAY)
                    static_cast<client*>(self)->goaway_code = static_cast<int>(f->goaway.error_code);
                return 0;
            });
        nghttp2_option* option = nullptr;
        nghttp2_option_new(&option);
        nghttp2_option_set_no_auto_window_update(option, auto_window ? 0 : 1);
        nghttp2_session_client_new2(&session, cb, this, option);
        nghttp2_option_del(option);
        nghttp2_session_callbacks_del(cb);
        const nghttp2_settings_entry settings{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, initial_window};
        nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, &settings, 1);
    }
    ~client() { nghttp2_session_del(session); }
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    static nghttp2_nv field(const char* name, const std::string& value)
    {
        return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name)),
                reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), std::strlen(name), value.size(),
                NGHTTP2_NV_FLAG_NONE};
    }

    /// Opens a stream asking `method` `path` (with `body` when not empty).
    std::int32_t request(const std::string& method, const std::string& path, const std::string& body = {})
    {
        const std::string scheme = "http", authority = "test", type = "application/json";
        std::vector<nghttp2_nv> nv{field(":method", method), field(":path", path), field(":scheme", scheme),
                                   field(":authority", authority)};
        if (!body.empty())
            nv.push_back(field("content-type", type));
        if (body.empty())
            return nghttp2_submit_request(session, nullptr, nv.data(), nv.size(), nullptr, nullptr);
        bodies.push_back(body);
        nghttp2_data_provider provider{};
        provider.source.ptr = &bodies.back();
        provider.read_callback = [](nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                                    std::uint32_t* flags, nghttp2_data_source* source, void*) -> ssize_t {
            auto* b = static_cast<std::string*>(source->ptr);
            const auto n = std::min(length, b->size());
            std::memcpy(buf, b->data(), n);
            b->erase(0, n);
            if (b->empty())
                *flags |= NGHTTP2_DATA_FLAG_EOF;
            return static_cast<ssize_t>(n);
        };
        return nghttp2_submit_request(session, nullptr, nv.data(), nv.size(), &provider, nullptr);
    }

    /// What the client has to send.
    std::string drain()
    {
        std::string out;
        const std::uint8_t* data = nullptr;
        for (ssize_t n; (n = nghttp2_session_mem_send(session, &data)) > 0;)
            out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
        return out;
    }

    /// Sends what the client has to the server, then what the server has back; false when the server refused.
    bool exchange(server_session& server)
    {
        const bool ok = server.receive(drain());
        deliver(server);
        return ok;
    }

    /// Gives the client what the server framed.
    void deliver(server_session& server)
    {
        for (auto out = server.output(); !out.empty(); out = server.output()) {
            nghttp2_session_mem_recv(session, reinterpret_cast<const std::uint8_t*>(out.data()), out.size());
            server.consumed(out.size());
        }
    }

    nghttp2_session* session = nullptr;
    std::map<std::int32_t, answer> answers;
    std::vector<std::string> bodies;
    int goaway_code = -1;
};

/// The server's events, requests' heads and bodies with them.
struct taken {
    std::vector<event> events;
    std::vector<execbench::http::request_storage> requests;
};

taken take_events(server_session& server)
{
    taken t;
    event e;
    execbench::http::request_storage storage;
    while (server.next_event(e, storage)) {
        t.events.push_back(e);
        if (e.what == event::kind::request)
            t.requests.push_back(storage);
    }
    return t;
}

}  // namespace

TEST_CASE("an HTTP/2 request surfaces whole and its answer reaches the client")
{
    server_session server{{}};
    client c;
    const auto get = c.request("GET", "/io?delayInMillis=0");
    const auto post = c.request("POST", "/movies", R"([{"title":"x"}])");
    REQUIRE(c.exchange(server));
    auto t = take_events(server);
    REQUIRE(t.requests.size() == 2);
    CHECK(t.events[0].stream == get);
    CHECK(t.requests[0].method == execbench::http::verb::get);
    CHECK(t.requests[0].target == "/io?delayInMillis=0");
    CHECK(t.requests[0].http2);
    CHECK(t.requests[1].method == execbench::http::verb::post);
    CHECK(t.requests[1].body == R"([{"title":"x"}])");
    CHECK(t.requests[1].content_type == "application/json");

    execbench::http::response r;
    r.body = "hello";
    server.respond(get, r, false);
    r.code = execbench::http::status::created;
    server.respond(post, r, true);  // HEAD-like: no body sent
    c.deliver(server);
    CHECK(c.answers[get].status == "200");
    CHECK(c.answers[get].body == "hello");
    CHECK(c.answers[get].closed);
    CHECK(c.answers[post].status == "201");
    CHECK(c.answers[post].body.empty());
    CHECK(server.open_streams() == 0);
}

TEST_CASE("an HTTP/2 event stream is framed as the client's window allows, one piece asked for at a time")
{
    server_session server{{}};
    client c(10, false);  // a 10-byte stream window, opened only when the test says so
    const auto id = c.request("GET", "/stream");
    REQUIRE(c.exchange(server));
    REQUIRE(take_events(server).requests.size() == 1);
    execbench::http::response head;
    head.content_type = "text/event-stream";
    head.streamed = true;
    REQUIRE(server.begin_stream(id, head));
    server.push(id, "12345678", false);
    c.deliver(server);
    CHECK(c.answers[id].body == "12345678");
    auto t = take_events(server);
    REQUIRE(t.events.size() == 1);  // the piece was taken: the next may be made
    CHECK(t.events[0].what == event::kind::wants_data);

    server.push(id, "abcdefgh", true);
    c.deliver(server);
    CHECK(c.answers[id].body == "12345678ab");  // the window holds 2 more bytes, then the server waits
    CHECK(server.waits_on_peer());
    CHECK(take_events(server).events.empty());

    nghttp2_session_consume(c.session, id, 10);  // the client reads: WINDOW_UPDATE
    nghttp2_session_consume_connection(c.session, 10);
    REQUIRE(c.exchange(server));
    CHECK(c.answers[id].body == "12345678abcdefgh");
    CHECK(c.answers[id].closed);
    CHECK_FALSE(server.waits_on_peer());
}

TEST_CASE("a client cancelling streams faster than the limit is sent GOAWAY ENHANCE_YOUR_CALM")
{
    execbench::http2::limits limits;
    limits.window = std::chrono::hours(1);  // however slow the machine, every reset falls in one window
    server_session server{limits};
    client c;
    bool refused = false;
    for (unsigned i = 0; i <= limits.max_resets_per_window && !refused; ++i) {
        const auto id = c.request("GET", "/io");
        refused = !c.exchange(server);  // HEADERS out first: a stream never sent is never reset
        nghttp2_submit_rst_stream(c.session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
        refused = refused || !c.exchange(server);
    }
    CHECK(refused);
    CHECK(server.goaway_sent() == goaway_reason::rapid_reset);
    CHECK(c.goaway_code == NGHTTP2_ENHANCE_YOUR_CALM);
    CHECK(server.finished());
    // The streams the client reset were cancelled, not left with the model.
    for (const auto& e : take_events(server).events)
        CHECK(e.what != event::kind::wants_data);
}

TEST_CASE("the connection preface tells h2c from HTTP/1.1, and a bad one is answered GOAWAY PROTOCOL_ERROR")
{
    using execbench::http2::match_preface;
    using execbench::http2::preface_match;
    CHECK(match_preface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == preface_match::http2);
    CHECK(match_preface("PRI ") == preface_match::http2);
    CHECK(match_preface("PR") == preface_match::undecided);
    CHECK(match_preface("P") == preface_match::undecided);
    CHECK(match_preface("POST / HTTP/1.1\r\n") == preface_match::http1);
    CHECK(match_preface("GET / HTTP/1.1\r\n") == preface_match::http1);

    server_session server{{}};
    CHECK_FALSE(server.receive("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"));
    CHECK(server.goaway_sent() == goaway_reason::protocol_error);
    const auto out = std::string(server.output());
    server.consumed(out.size());
    // Our SETTINGS (type 4), then GOAWAY (type 7) with PROTOCOL_ERROR (1) as its last four bytes.
    REQUIRE(out.size() >= 9 + 24 + 9 + 8);
    CHECK(out[3] == 4);
    const auto goaway = out.substr(out.size() - 17);
    CHECK(goaway[3] == 7);
    CHECK(goaway.substr(goaway.size() - 4) == std::string("\0\0\0\1", 4));
    CHECK(server.finished());
}

TEST_CASE("floods of SETTINGS and of CONTINUATION frames are sent GOAWAY ENHANCE_YOUR_CALM")
{
    execbench::http2::limits limits;
    limits.window = std::chrono::hours(1);
    SECTION("SETTINGS")
    {
        server_session server{limits};
        client c;
        for (unsigned i = 0; i <= limits.max_control_frames_per_window; ++i)
            nghttp2_submit_settings(c.session, NGHTTP2_FLAG_NONE, nullptr, 0);
        CHECK_FALSE(c.exchange(server));
        CHECK(server.goaway_sent() == goaway_reason::control_flood);
        CHECK(c.goaway_code == NGHTTP2_ENHANCE_YOUR_CALM);
    }
    SECTION("CONTINUATION")
    {
        server_session server{limits};
        std::string bytes(execbench::http2::connection_preface);
        bytes.append("\0\0\0\4\0\0\0\0\0", 9);  // an empty SETTINGS frame
        auto frame = [&](std::uint8_t type, std::uint8_t flags, std::string_view payload) {
            const auto n = payload.size();
            const char head[9] = {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n),
                                  static_cast<char>(type), static_cast<char>(flags), 0, 0, 0, 1};
            bytes.append(head, 9).append(payload);
        };
        frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_STREAM, "\x82\x84\x86");  // GET / http, no END_HEADERS
        for (unsigned i = 0; i <= limits.max_continuations; ++i)
            frame(NGHTTP2_CONTINUATION, 0, "\x82");
        CHECK_FALSE(server.receive(bytes));
        CHECK(server.goaway_sent() == goaway_reason::header_flood);
    }
}
