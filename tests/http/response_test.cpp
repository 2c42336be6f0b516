#include "execbench/http/response.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <string>

using namespace execbench::http;

TEST_CASE("serialize writes status line, headers and body", "[http]")
{
    response r;
    r.body = "{\"waitedMillis\":0}";
    std::string out;
    serialize(r, {.keep_alive = true}, out);

    CHECK_THAT(out, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nContent-Type: application/json\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nContent-Length: 18\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nServer: execbench\r\n"));
    CHECK_THAT(out, Catch::EndsWith("\r\n\r\n{\"waitedMillis\":0}"));
    CHECK(out.find("Connection:") == std::string::npos);  // keep-alive is HTTP/1.1's default
    CHECK(out.find("Allow:") == std::string::npos);
    CHECK(out.find("Retry-After:") == std::string::npos);
    CHECK(std::regex_search(out, std::regex("\r\nDate: [A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} "
                                            "\\d{2}:\\d{2}:\\d{2} GMT\r\n")));
}

TEST_CASE("serialize says Connection: close when the connection ends", "[http]")
{
    auto check_closing = [](const std::string& out) {
        CHECK_THAT(out, Catch::Contains("\r\nConnection: close\r\n"));
        CHECK_THAT(out, Catch::Contains("\r\nContent-Length: 0\r\n"));
    };
    response r;
    std::string out;
    SECTION("because the request asked")
    {
        serialize(r, {.keep_alive = false}, out);
        check_closing(out);
    }
    SECTION("because the response demands it")
    {
        r.close = true;
        serialize(r, {.keep_alive = keeps_open(true, r, false)}, out);
        check_closing(out);
    }
    SECTION("because the server is stopping")
    {
        serialize(r, {.keep_alive = keeps_open(true, r, true)}, out);
        check_closing(out);
    }
}

TEST_CASE("keeps_open is the one keep-alive rule", "[http]")
{
    response r;
    CHECK(keeps_open(true, r, false));
    CHECK_FALSE(keeps_open(false, r, false));
    CHECK_FALSE(keeps_open(true, r, true));
    r.close = true;
    CHECK_FALSE(keeps_open(true, r, false));
}

TEST_CASE("serialize_head leaves the body to be written beside it", "[http]")
{
    response r;
    r.body = "{\"a\":1}";
    std::string head;
    std::string whole;
    serialize_head(r, {.keep_alive = true}, head);
    serialize(r, {.keep_alive = true}, whole);
    CHECK_THAT(head, Catch::EndsWith("\r\nContent-Length: 7\r\n\r\n"));
    CHECK(head + r.body == whole);
}

TEST_CASE("serialize adds Allow and Retry-After when set", "[http]")
{
    response r;
    r.code = status::method_not_allowed;
    r.allow = "GET, POST";
    r.retry_after_seconds = 7;
    std::string out = "previous;";
    serialize(r, {.keep_alive = true}, out);
    CHECK_THAT(out, Catch::StartsWith("previous;HTTP/1.1 405 Method Not Allowed\r\n"));  // appends
    CHECK_THAT(out, Catch::Contains("\r\nAllow: GET, POST\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nRetry-After: 7\r\n"));
}

TEST_CASE("every status has its reason phrase", "[http]")
{
    CHECK(reason(status::ok) == "OK");
    CHECK(reason(status::created) == "Created");
    CHECK(reason(status::bad_request) == "Bad Request");
    CHECK(reason(status::not_found) == "Not Found");
    CHECK(reason(status::payload_too_large) == "Payload Too Large");
    CHECK(reason(status::unsupported_media_type) == "Unsupported Media Type");
    CHECK(reason(status::request_header_fields_too_large) == "Request Header Fields Too Large");
    CHECK(reason(status::service_unavailable) == "Service Unavailable");
    CHECK(reason(status::gateway_timeout) == "Gateway Timeout");
}

TEST_CASE("response::clear resets to an empty 200", "[http]")
{
    response r;
    r.code = status::service_unavailable;
    r.content_type = "text/plain";
    r.body = "x";
    r.allow = "GET";
    r.retry_after_seconds = 1;
    r.close = true;
    r.streamed = true;
    r.clear();
    CHECK(r.code == status::ok);
    CHECK(r.content_type == "application/json");
    CHECK(r.body.empty());
    CHECK(r.allow.empty());
    CHECK(r.retry_after_seconds == 0);
    CHECK_FALSE(r.close);
    CHECK_FALSE(r.streamed);
}

TEST_CASE("event streams are chunked", "[http]")
{
    std::string out;
    event_stream::append_head({}, out);
    CHECK_THAT(out, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nContent-Type: text/event-stream\r\n"));
    CHECK_THAT(out, Catch::Contains("\r\nTransfer-Encoding: chunked\r\n"));
    CHECK_THAT(out, Catch::EndsWith("\r\n\r\n"));
    CHECK(out.find("Content-Length") == std::string::npos);

    std::string chunks;
    for (const std::string& data : {std::string("hello"), std::string(26, 'z')}) {
        event_stream::begin_chunk({}, data.size(), chunks);
        chunks += data;
        event_stream::end_chunk({}, chunks);
    }
    event_stream::append_last_chunk({}, chunks);
    CHECK(chunks == "5\r\nhello\r\n1a\r\n" + std::string(26, 'z') + "\r\n0\r\n\r\n");
}

TEST_CASE("an HTTP/1.0 client is told keep-alive, and its event stream is neither chunked nor kept", "[http]")
{
    response r;
    std::string out;
    serialize(r, {.keep_alive = true, .http10 = true}, out);
    CHECK_THAT(out, Catch::Contains("\r\nConnection: keep-alive\r\n"));
    out.clear();
    serialize(r, {.keep_alive = false, .http10 = true}, out);
    CHECK_THAT(out, Catch::Contains("\r\nConnection: close\r\n"));

    out.clear();
    const framing closing{.keep_alive = false, .http10 = true};
    event_stream::append_head(closing, out);
    CHECK_THAT(out, Catch::Contains("\r\nContent-Type: text/event-stream\r\n"));
    CHECK(out.find("Transfer-Encoding") == std::string::npos);
    CHECK(out.find("Content-Length") == std::string::npos);
    std::string events;
    event_stream::begin_chunk(closing, 5, events);
    events += "hello";
    event_stream::end_chunk(closing, events);
    event_stream::append_last_chunk(closing, events);
    CHECK(events == "hello");
}

TEST_CASE("a streamed response's head is the event stream's", "[http]")
{
    response r;
    r.content_type = "text/event-stream";
    r.streamed = true;
    std::string head;
    serialize_head(r, {}, head);
    std::string stream;
    event_stream::append_head({}, stream);
    // The Date may tick between the two.
    auto without_date = [](std::string s) { return s.erase(s.find("Date: "), s.find("\r\n", s.find("Date: ")) - s.find("Date: ")); };
    CHECK(without_date(head) == without_date(stream));
}
