#pragma once

#include "execbench/load/record/measurement.hpp"
#include "execbench/load/engine/response_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace execbench::load {

// One request's exchange on a keep-alive connection, without its socket: what the bytes a read brings and the ends
// of connects, writes and reads mean. The engine's connection does the I/O and asks these; a unit test asks them
// byte by byte without a socket.

/// Where one response stands after a read or the connection's end.
enum class read_state {
    need_more,     ///< incomplete: read again
    done,          ///< a whole response: the parser has its status, body size and keep-alive
    bad_response,  ///< bytes that are not an HTTP/1.1 response, or a head larger than the buffer
    cut_off,       ///< the connection ended before the response was whole (counted as a reset)
};

/// The read half of a connection: a fixed buffer the socket reads into and the parser fed from it. Bodies stream
/// through; only a response's head must fit. Bytes past a response belong to the next one when requests are
/// pipelined (next()); otherwise they are dropped with it and the next response starts with the next request
/// (begin()).
class response_reader {
public:
    static constexpr std::size_t buffer_bytes = 16 * 1024;

    /// Starts a new response, forgetting any bytes read before (a server's unasked bytes are no part of it).
    void begin();
    /// Starts the response after the one just done, keeping the bytes that came after it (pipelined requests): call
    /// parse() before reading again, since those bytes may hold it whole.
    void next();
    /// Parses the bytes kept by next() without reading.
    read_state parse() { return received(0); }
    /// Where the next read writes; not empty after begin() or while received() says need_more.
    [[nodiscard]] boost::asio::mutable_buffer space() noexcept;
    /// `n` bytes arrived at space(): parses what it can.
    read_state received(std::size_t n);
    /// The peer closed the connection: a body delimited by the close is whole; anything else was cut off (or bad).
    read_state closed();
    /// The response being read; valid from begin() on.
    [[nodiscard]] const response_parser& response() const noexcept { return *parser_; }

private:
    std::optional<response_parser> parser_;
    std::unique_ptr<char[]> buffer_;
    std::size_t begin_ = 0;  // the first byte not yet parsed
    std::size_t end_ = 0;    // one past the last byte read
};

/// The error class of a connect that failed with `ec`; `timed_out` says this generator's deadline closed it.
error_class connect_failure(const boost::system::error_code& ec, bool timed_out) noexcept;

/// Whether request `sent_on_socket` (1-based, since the socket connected) is the last one a connection carries when
/// it carries at most `limit` (0: no limit): it asks the server to close, so the server holds the TIME_WAIT.
bool last_on_socket(std::uint32_t sent_on_socket, std::uint32_t limit) noexcept;

}  // namespace execbench::load
