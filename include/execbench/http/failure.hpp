#pragma once

#include "execbench/http/response.hpp"

#include <boost/system/error_code.hpp>

#include <cstdint>
#include <string_view>

namespace execbench::http {

/// Why a request could not be served; mapped to a status in exactly one place (`to_status`).
enum class failure : std::uint8_t {
    bad_parameter,           ///< a query parameter does not parse or is out of range
    bad_body,                ///< the body is not what the endpoint accepts
    malformed_request,       ///< the HTTP message itself is broken
    not_found,               ///< no such path
    method_not_allowed,      ///< the path exists but not for this method
    header_too_large,        ///< request head over the limit
    body_too_large,          ///< request body over the limit
    unsupported_media_type,  ///< wrong Content-Type for a body
    downstream_unavailable,  ///< the downstream server refused or dropped the call
    downstream_bad_answer,   ///< the downstream server answered something unusable
    downstream_timeout,      ///< the downstream call exceeded its deadline
    downstream_queue_full,   ///< every downstream connection is busy and the calls waiting for one are too many
    overloaded,              ///< the server's queue is full
    database_unavailable,    ///< the movies database server refused, dropped or is restarting
    database_timeout,        ///< the movies database did not answer within --db-timeout
    internal,                ///< a bug or a failing dependency (e.g. the database)
};

/// The HTTP status for a failure.
status to_status(failure f) noexcept;

/// Fills `out` with a JSON error response `{"error": message}` for `f`; closes the connection when HTTP requires it.
void make_error(failure f, std::string_view message, response& out);

/// Classifies an error from the request parser; `message` receives a short description for the client.
failure classify_parse_error(const boost::system::error_code& ec, std::string_view& message) noexcept;

/// Classifies an error from a downstream call.
failure classify_downstream_error(const boost::system::error_code& ec) noexcept;

}  // namespace execbench::http
