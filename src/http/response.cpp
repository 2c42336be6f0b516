#include "execbench/http/response.hpp"

#include "execbench/core/text.hpp"

#include <charconv>
#include <chrono>
#include <ctime>

namespace execbench::http {

std::string_view reason(status s) noexcept
{
    switch (s) {
    case status::ok: return "OK";
    case status::created: return "Created";
    case status::bad_request: return "Bad Request";
    case status::not_found: return "Not Found";
    case status::method_not_allowed: return "Method Not Allowed";
    case status::payload_too_large: return "Payload Too Large";
    case status::unsupported_media_type: return "Unsupported Media Type";
    case status::request_header_fields_too_large: return "Request Header Fields Too Large";
    case status::internal_server_error: return "Internal Server Error";
    case status::not_implemented: return "Not Implemented";
    case status::bad_gateway: return "Bad Gateway";
    case status::service_unavailable: return "Service Unavailable";
    case status::gateway_timeout: return "Gateway Timeout";
    }
    return "Unknown";
}

void response::clear() noexcept
{
    code = status::ok;
    content_type = "application/json";
    body.clear();
    allow = {};
    retry_after_seconds = 0;
    close = false;
    streamed = false;
}

namespace {

void append_common_head(status code, framing f, std::string& out)
{
    out.append("HTTP/1.1 ");
    append_number(static_cast<unsigned>(code), out);
    out.push_back(' ');
    out.append(reason(code));
    out.append("\r\nServer: execbench\r\nDate: ");
    out.append(date_header());
    // HTTP/1.1 keeps connections open by default; only the closing case needs saying. HTTP/1.0 closes by default,
    // so a client that asked to keep it open (ab -k) waits for a close unless it is told otherwise.
    if (!f.keep_alive)
        out.append("\r\nConnection: close");
    else if (f.http10)
        out.append("\r\nConnection: keep-alive");
    out.append("\r\n");
}

}  // namespace

void serialize_head(const response& r, framing f, std::string& out)
{
    append_common_head(r.code, f, out);
    out.append("Content-Type: ");
    out.append(r.content_type);
    if (r.streamed) {
        out.append("\r\nCache-Control: no-cache\r\n");
        if (!f.http10)
            out.append("Transfer-Encoding: chunked\r\n");
    } else {
        out.append("\r\nContent-Length: ");
        append_number(r.body.size(), out);
        out.append("\r\n");
    }
    if (!r.allow.empty()) {
        out.append("Allow: ");
        out.append(r.allow);
        out.append("\r\n");
    }
    if (r.retry_after_seconds != 0) {
        out.append("Retry-After: ");
        append_number(r.retry_after_seconds, out);
        out.append("\r\n");
    }
    out.append("\r\n");
}

void serialize(const response& r, framing f, std::string& out)
{
    serialize_head(r, f, out);
    out.append(r.body);
}

void event_stream::append_head(framing f, std::string& out)
{
    if (f.http2)
        return;
    response r;
    r.content_type = "text/event-stream";
    r.streamed = true;
    serialize_head(r, f, out);
}

void event_stream::begin_chunk(framing f, std::size_t size, std::string& out)
{
    if (f.http10 || f.http2)
        return;
    char digits[20];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, size, 16);
    (void)ec;
    out.append(digits, end);
    out.append("\r\n");
}

std::string_view date_header() noexcept
{
    // One formatted value per thread, refreshed when the second changes: no locks, no allocation.
    thread_local std::time_t cached_second = 0;
    thread_local char buffer[32] = {};
    thread_local std::size_t length = 0;
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    if (now != cached_second) {
        std::tm tm{};
        gmtime_r(&now, &tm);
        length = std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        cached_second = now;
    }
    return {buffer, length};
}

}  // namespace execbench::http
