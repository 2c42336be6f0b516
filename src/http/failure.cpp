#include "execbench/http/failure.hpp"

#include "execbench/http/request_parser.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <nlohmann/json.hpp>

namespace execbench::http {

status to_status(failure f) noexcept
{
    switch (f) {
    case failure::bad_parameter:
    case failure::bad_body:
    case failure::malformed_request: return status::bad_request;
    case failure::not_found: return status::not_found;
    case failure::method_not_allowed: return status::method_not_allowed;
    case failure::header_too_large: return status::request_header_fields_too_large;
    case failure::body_too_large: return status::payload_too_large;
    case failure::unsupported_media_type: return status::unsupported_media_type;
    case failure::downstream_unavailable:
    case failure::downstream_bad_answer: return status::bad_gateway;
    case failure::downstream_timeout:
    case failure::database_timeout: return status::gateway_timeout;
    case failure::overloaded:
    case failure::downstream_queue_full:
    case failure::database_unavailable: return status::service_unavailable;
    case failure::internal: return status::internal_server_error;
    }
    return status::internal_server_error;
}

void make_error(failure f, std::string_view message, response& out)
{
    out.clear();
    out.code = to_status(f);
    out.body = nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    switch (f) {
    // After a framing error the rest of the stream cannot be trusted; after an oversized message the unread
    // remainder would be taken for the next request.
    case failure::malformed_request:
    case failure::header_too_large:
    case failure::body_too_large:
    case failure::unsupported_media_type: out.close = true; break;
    case failure::overloaded:
        out.retry_after_seconds = 1;
        out.close = true;
        break;
    default: break;
    }
}

failure classify_parse_error(const boost::system::error_code& ec, std::string_view& message) noexcept
{
    namespace be = boost::beast::http;
    if (ec == be::error::header_limit) {
        message = "request header exceeds 8192 bytes";
        return failure::header_too_large;
    }
    if (ec == be::error::body_limit) {
        message = "request body exceeds 1048576 bytes";
        return failure::body_too_large;
    }
    if (ec == be::error::bad_version) {
        message = "unsupported HTTP version: only HTTP/1.0 and HTTP/1.1 are served";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_method) {
        message = "malformed request method";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_target) {
        message = "malformed request target";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_field || ec == be::error::bad_value) {
        message = "malformed header field";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_content_length || ec == be::error::multiple_content_length) {
        message = "invalid or conflicting Content-Length";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_transfer_encoding) {
        message = "invalid Transfer-Encoding (chunked must be last; not allowed with Content-Length)";
        return failure::malformed_request;
    }
    if (ec == be::error::bad_chunk || ec == be::error::bad_chunk_extension) {
        message = "malformed chunk";
        return failure::malformed_request;
    }
    if (ec == be::error::partial_message) {
        message = "request ended before the declared body";
        return failure::malformed_request;
    }
    if (ec == make_error_code(request_error::bad_host)) {
        message = "an HTTP/1.1 request needs exactly one Host header";
        return failure::malformed_request;
    }
    message = "malformed HTTP request";
    return failure::malformed_request;
}

failure classify_downstream_error(const boost::system::error_code& ec) noexcept
{
    if (ec == boost::beast::error::timeout || ec == boost::asio::error::timed_out ||
        ec == boost::asio::error::would_block || ec == boost::asio::error::try_again)
        return failure::downstream_timeout;
    namespace be = boost::beast::http;
    if (ec == be::error::end_of_stream)
        return failure::downstream_unavailable;
    if (ec.category() == be::make_error_code(be::error::bad_version).category() ||
        ec == boost::asio::error::message_size)
        return failure::downstream_bad_answer;
    return failure::downstream_unavailable;
}

}  // namespace execbench::http
