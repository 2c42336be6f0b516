#pragma once

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
    request_timeout = 408,
    payload_too_large = 413,
    unsupported_media_type = 415,
    request_header_fields_too_large = 431,
    internal_server_error = 500,
    not_implemented = 501,
    bad_gateway = 502,
    service_unavailable = 503,
    gateway_timeout = 504,
    http_version_not_supported = 505,
};

/// The reason phrase for a status, e.g. "Not Found".
std::string_view reason(status s) noexcept;

/// A response before serialisation; owned by a connection and reused, so `body` keeps its capacity.
struct response {
    status code = status::ok;
    std::string_view content_type = "application/json";
    std::string body;
    std::string_view allow;          ///< sent as `Allow` when not empty (405)
    unsigned retry_after_seconds = 0; ///< sent as `Retry-After` when not zero (503)
    bool close = false;              ///< the server closes the connection after this response

    /// Resets to an empty 200 keeping the body's capacity.
    void clear() noexcept;
};

/// Appends status line, headers and body to `out`; `keep_alive` is the connection's state after this response.
void serialize(const response& r, bool keep_alive, std::string& out);

/// Appends the head of a chunked `text/event-stream` response.
void serialize_event_stream_head(bool keep_alive, std::string& out);
/// Appends one chunk holding `data`.
void append_chunk(std::string_view data, std::string& out);
/// Appends the last (empty) chunk that ends a chunked body.
void append_last_chunk(std::string& out);

/// The current `Date` header value (IMF-fixdate), recomputed at most once per second per thread.
std::string_view date_header() noexcept;

}  // namespace execbench::http
