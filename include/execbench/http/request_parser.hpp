#pragma once

#include "execbench/http/request.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/system/error_code.hpp>

namespace execbench::http {

/// Request errors Beast's parser does not know; reported through `request_error_category`.
enum class request_error {
    bad_host = 1,  ///< an HTTP/1.1 request without exactly one Host header (RFC 9112 section 3.2)
};

/// The category of `request_error`; its codes are answerable (the client gets a 400), like Beast's parse errors.
const boost::system::error_category& request_error_category() noexcept;

/// Makes an error_code from a `request_error`.
boost::system::error_code make_error_code(request_error e) noexcept;

/// An HTTP/1 request parser that writes into connection-owned `request_storage` instead of allocating a message.
///
/// Beast's `basic_parser` does the framing (Content-Length, chunked, limits, smuggling checks); this class keeps
/// only what endpoints need. A new parser is made per request (it is small and lives on the stack or in the
/// connection); the storage it fills is what is reused.
class request_parser final : public boost::beast::http::basic_parser<true> {
public:
    /// Starts parsing into `storage`, which is cleared.
    explicit request_parser(request_storage& storage);

private:
    void on_request_impl(boost::beast::http::verb method, boost::beast::string_view method_str,
                         boost::beast::string_view target, int version, boost::beast::error_code& ec) override;
    void on_response_impl(int, boost::beast::string_view, int, boost::beast::error_code& ec) override;
    void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                       boost::beast::string_view value, boost::beast::error_code& ec) override;
    void on_header_impl(boost::beast::error_code& ec) override;
    void on_body_init_impl(const boost::optional<std::uint64_t>& content_length, boost::beast::error_code& ec) override;
    std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override;
    void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                              boost::beast::error_code& ec) override;
    std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                   boost::beast::error_code& ec) override;
    void on_finish_impl(boost::beast::error_code& ec) override;

    request_storage& storage_;
    int version_ = 11;
    int host_fields_ = 0;
    bool transfer_encoding_ = false;
    std::size_t header_bytes_ = 0;  ///< request line and fields so far, for the cumulative head limit
    bool connection_close_ = false;
    bool connection_keep_alive_ = false;
    bool expects_continue_ = false;
};

/// Feeds the buffered bytes to `parser`: true once the request is complete; false when more bytes are needed
/// (`ec` clear) or the request is malformed (`ec` set). Consumes what the parser used.
bool parse_buffered(request_parser& parser, boost::beast::flat_buffer& buffer, boost::system::error_code& ec);

/// True for request read errors the client should hear about (a malformed request, answered 4xx); false for those
/// that leave nobody to answer (the peer left, a deadline closed the connection).
bool is_parse_error(const boost::system::error_code& ec) noexcept;

}  // namespace execbench::http
