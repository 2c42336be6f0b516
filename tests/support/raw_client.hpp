#pragma once

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::test_support {

/// How long a test waits for any one thing before it fails instead of hanging.
inline constexpr std::chrono::milliseconds default_timeout{10'000};

/// Case-insensitive ordering for header names.
struct header_name_less {
    bool operator()(const std::string& a, const std::string& b) const noexcept;
};

/// One HTTP response as received.
struct raw_response {
    unsigned status = 0;
    std::map<std::string, std::string, header_name_less> headers;
    std::string body;        ///< decoded (chunked framing removed)
    bool keep_alive = true;  ///< what the response says about the connection
    bool chunked = false;

    /// The value of header `name`, empty when absent.
    [[nodiscard]] std::string header(const std::string& name) const;
    /// True when the response carries header `name`.
    [[nodiscard]] bool has_header(const std::string& name) const { return headers.count(name) != 0; }
};

/// Socket settings applied before connecting.
struct client_options {
    int receive_buffer_bytes = 0;  ///< SO_RCVBUF; 0 keeps the system default
};

/// A tiny blocking HTTP/1.1 client over a plain loopback socket, for tests that need exact bytes on the wire.
///
/// Every call takes a timeout and throws std::runtime_error naming what it waited for when it passes, so a test
/// fails instead of hanging. Bytes received after one response are kept for the next (keep-alive, pipelining).
class raw_client {
public:
    /// Connects to 127.0.0.1:`port`.
    explicit raw_client(std::uint16_t port, client_options options = {},
                        std::chrono::milliseconds timeout = default_timeout);
    ~raw_client();
    raw_client(const raw_client&) = delete;
    raw_client& operator=(const raw_client&) = delete;

    /// Sends `bytes` as they are.
    void send(std::string_view bytes, std::chrono::milliseconds timeout = default_timeout);
    /// Sends `GET target HTTP/1.1` with a Host header and `extra_headers` (each ending in "\r\n").
    void send_get(std::string_view target, std::string_view extra_headers = {},
                  std::chrono::milliseconds timeout = default_timeout);

    /// Reads one complete response.
    raw_response read_response(std::chrono::milliseconds timeout = default_timeout);
    /// Reads one complete response and returns its bytes exactly as they came (pipelining tests compare them).
    std::string read_response_bytes(std::chrono::milliseconds timeout = default_timeout);
    /// send_get then read_response.
    raw_response get(std::string_view target, std::string_view extra_headers = {},
                     std::chrono::milliseconds timeout = default_timeout);

    /// Reads until the head of a response is complete and returns it with an empty body; the body follows
    /// through `read_body_some`.
    raw_response read_head(std::chrono::milliseconds timeout = default_timeout);
    /// Appends at least one more byte of the decoded body of the response begun by `read_head` to `out`, unless
    /// the body is complete. Returns false once the body is complete.
    bool read_body_some(std::string& out, std::chrono::milliseconds timeout = default_timeout);

    /// Waits until the server closes the connection, discarding whatever arrives first. True when it closed
    /// (orderly or by reset) within `timeout`; false when it stayed open.
    bool wait_for_close(std::chrono::milliseconds timeout = default_timeout);

    /// Reads raw bytes until the server closes the connection (including any not yet parsed); throws when it
    /// stays open past `timeout`.
    std::string read_until_close(std::chrono::milliseconds timeout = default_timeout);

    /// Closes our sending side (the server sees end of stream).
    void shutdown_send();

private:
    using parser_type = boost::beast::http::response_parser<boost::beast::http::string_body>;

    // Reads what is available into buffer_ (waiting until `deadline`); returns 0 at end of stream.
    std::size_t fill(std::chrono::steady_clock::time_point deadline, const char* waiting_for);
    // Feeds buffered bytes to the parser; returns when the buffer is used up or the parser needs nothing more
    // for the current step.
    void feed();
    raw_response head_of(const parser_type& parser) const;

    int fd_ = -1;
    std::string buffer_;
    std::optional<parser_type> parser_;
    std::string* wire_ = nullptr;  // while set, feed() appends the bytes the parser takes
};

}  // namespace execbench::test_support
