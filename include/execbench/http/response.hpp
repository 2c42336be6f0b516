#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::http {

/// The status codes execbench answers with.
enum class status : std::uint16_t {
    ok = 200,
    created = 201,
    bad_request = 400,
    not_found = 404,
    method_not_allowed = 405,
    payload_too_large = 413,
    unsupported_media_type = 415,
    request_header_fields_too_large = 431,
    internal_server_error = 500,
    not_implemented = 501,
    bad_gateway = 502,
    service_unavailable = 503,
    gateway_timeout = 504,
};

/// The reason phrase for a status, e.g. "Not Found".
std::string_view reason(status s) noexcept;

/// A response before serialisation; owned by a connection and reused, so `body` keeps its capacity.
struct response {
    status code = status::ok;
    std::string_view content_type = "application/json";
    std::string body;
    std::string_view allow;            ///< sent as `Allow` when not empty (405)
    unsigned retry_after_seconds = 0;  ///< sent as `Retry-After` when not zero (503)
    bool close = false;                ///< the server closes the connection after this response
    bool streamed = false;             ///< the body is an event stream of unknown length (the head of HEAD /stream)

    /// Resets to an empty 200 keeping the body's capacity.
    void clear() noexcept;
};

/// True when the connection stays open after `r`: the client asked for keep-alive (`requested`), the response does
/// not close it and the server is not stopping. The one keep-alive rule every model follows.
[[nodiscard]] constexpr bool keeps_open(bool requested, const response& r, bool stopping) noexcept
{
    return requested && !r.close && !stopping;
}

/// How an answer is framed for its connection: whether the connection stays open after it, and whether the client
/// spoke HTTP/1.0, which is told keep-alive in so many words (RFC 9112 section 9.3) and cannot read chunked coding,
/// so a body of unknown length ends with the connection (section 6.3).
struct framing {
    bool keep_alive = true;
    bool http10 = false;
    bool http2 = false;  ///< an HTTP/2 stream: its session frames the head and the body, so nothing is framed here
};

/// Appends status line and headers to `out`; the body follows from `r.body` (written beside it, not copied).
void serialize_head(const response& r, framing f, std::string& out);
/// Appends status line, headers and body to `out`.
void serialize(const response& r, framing f, std::string& out);

/// The interim answer to a request that sent `Expect: 100-continue`, before its body is read (RFC 9110 section 15.2.1).
inline constexpr std::string_view continue_interim = "HTTP/1.1 100 Continue\r\n\r\n";

/// A `text/event-stream` response, framed here once: the head, then one chunk per event, then the last chunk. To an
/// HTTP/1.0 client the events go unframed and the connection's close ends them. The events' bytes come from the
/// caller. On an HTTP/2 stream (`framing::http2`) only the events are appended: the session frames them.
struct event_stream {
    /// Appends the response head; an HTTP/1.0 stream must not keep its connection open.
    static void append_head(framing f, std::string& out);
    /// Appends the header of a chunk of `size` bytes; the caller appends the bytes, then `end_chunk`.
    static void begin_chunk(framing f, std::size_t size, std::string& out);
    /// Ends a chunk begun with `begin_chunk`.
    static void end_chunk(framing f, std::string& out)
    {
        if (!f.http10 && !f.http2)
            out.append("\r\n");
    }
    /// Appends the last (empty) chunk that ends the body.
    static void append_last_chunk(framing f, std::string& out)
    {
        if (!f.http10 && !f.http2)
            out.append("0\r\n\r\n");
    }
};

/// The current `Date` header value (IMF-fixdate), recomputed at most once per second per thread.
std::string_view date_header() noexcept;

}  // namespace execbench::http
