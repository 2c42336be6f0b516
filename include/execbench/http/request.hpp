#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::http {

/// Request methods the endpoints distinguish; everything else is `other`.
enum class verb : std::uint8_t { get, head, post, put, del, other };

/// A parsed request as endpoints see it: views into storage owned by the connection.
struct request {
    verb method = verb::other;
    std::string_view method_name;
    std::string_view target;  ///< path and query, as sent
    std::string_view path;    ///< target up to '?'
    std::string_view query;   ///< after '?', empty when absent
    std::string_view content_type;
    std::string_view body;
    bool keep_alive = true;
    bool http10 = false;  ///< sent as HTTP/1.0: told keep-alive explicitly, never sent chunked (RFC 9112 sections 9.3, 7.1)
    bool http2 = false;   ///< came on an HTTP/2 stream: the head and body are framed by the session, not here
};

/// Connection-owned buffers a request is parsed into; reused across requests so steady state does not allocate.
struct request_storage {
    std::string method_name;
    std::string target;
    std::string content_type;
    std::string body;
    verb method = verb::other;
    bool keep_alive = true;
    bool http10 = false;
    bool http2 = false;  ///< an HTTP/2 stream's request (its head and body framed by http2::server_session)
    /// An HTTP/1.1 request sent `Expect: 100-continue` and has not yet been told `100 Continue` (RFC 9110 section
    /// 10.1.1): the client waits for it before it sends the body.
    bool expects_continue = false;

    /// Forgets the previous request but keeps the capacity.
    void clear() noexcept;
    /// A view of the stored request.
    [[nodiscard]] request view() const noexcept;
};

/// Splits a target into path and query.
void split_target(std::string_view target, std::string_view& path, std::string_view& query) noexcept;

}  // namespace execbench::http
