#pragma once

#include "execbench/endpoints/request_counters.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http2/session_limits.hpp"
#include "execbench/tls/server_context.hpp"

#include "server_support.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

struct ssl_st;  // OpenSSL's SSL

namespace execbench::models {

/// A connection's byte stream: its non-blocking socket, or TLS over it. Every model reads and writes through it in
/// its own idiom, as it did the socket: it tries `read_some` / `write_some` first and, when they would block, waits
/// with `async_wait` (or polls `wait_events`, the pool's workers) and tries again. Cleartext costs one branch.
///
/// TLS is OpenSSL on the socket's descriptor, as nginx drives it: the handshake runs inside the first reads,
/// `SSL_ERROR_WANT_READ` / `WANT_WRITE` become `would_block`, and the next wait is for the direction OpenSSL named
/// (whatever the model asked), or no wait at all while decrypted bytes are pending. A write that would block is
/// retried by the model with the same buffers, which OpenSSL requires; up to a record of small buffers are gathered
/// into one record first, so a head and its body leave as one record and one system call, as they do in cleartext.
///
/// Each handshake's end is counted in `counters.tls()`. Cleartext HTTP sent to the TLS port is answered here, for
/// every model: when OpenSSL finds the first record is no TLS record (its header, which it reads anyway: no system
/// call more on the handshake path), the connection gets `400` with a JSON body saying to use https://, as nginx
/// answers, and its read fails as for any failed handshake, so the model closes it.
class transport {
public:
    /// Cleartext on `socket` when `tls` is null; otherwise TLS, its server handshake started by the first read and
    /// its outcome counted in `counters`.
    transport(socket_type socket, const tls::server_context* tls, endpoints::request_counters& counters);
    ~transport();
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;
    /// Takes over `other`'s connection (an HTTP/1.1 connection found to speak HTTP/2 hands its stream on); `other` is
    /// left closed, without closing the socket.
    transport(transport&& other) noexcept;
    transport& operator=(transport&&) = delete;

    /// The protocol the connection speaks, told once its first bytes `first` were read: by ALPN over TLS (the
    /// handshake is done by then), else by whether they begin the h2c connection preface.
    [[nodiscard]] http2::preface_match protocol(std::string_view first) const noexcept
    {
        if (ssl_ == nullptr)
            return http2::match_preface(first);
        return alpn_h2() ? http2::preface_match::http2 : http2::preface_match::http1;
    }

    /// Reads what has arrived, without blocking: `would_block` when nothing has (or the handshake goes on), `eof`
    /// when the peer closed, another error when the connection failed (a failed handshake among them).
    std::size_t read_some(const boost::asio::mutable_buffer& buffer, boost::system::error_code& ec)
    {
        if (ssl_ == nullptr)
            return socket_.read_some(buffer, ec);
        return tls_read(buffer, ec);
    }

    /// Writes what the socket takes now from `buffers`, without blocking; `would_block` when it takes nothing. After
    /// `would_block`, call again with the same bytes (the rest of the same buffers).
    template <class ConstBufferSequence>
    std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec)
    {
        if (ssl_ == nullptr)
            return socket_.write_some(buffers, ec);
        return tls_write(gather(buffers), ec);
    }

    /// Waits until the stream can go on in direction `w`: immediately when decrypted bytes wait to be read, for the
    /// direction OpenSSL named after a TLS read or write that would block, else for `w` on the socket.
    template <class CompletionToken>
    auto async_wait(boost::asio::socket_base::wait_type w, CompletionToken&& token)
    {
        return boost::asio::async_initiate<CompletionToken, void(boost::system::error_code)>(
            [this](auto handler, boost::asio::socket_base::wait_type asked) {
                if (ssl_ != nullptr && asked == boost::asio::socket_base::wait_read && tls_pending())
                    boost::asio::post(socket_.get_executor(),
                                      boost::asio::append(std::move(handler), boost::system::error_code{}));
                else
                    socket_.async_wait(wait_for(asked), std::move(handler));
            },
            token, w);
    }

    /// True while a TLS handshake is still to be done (the pool does it on a worker first: `handshake`).
    [[nodiscard]] bool needs_handshake() const noexcept
    {
        return ssl_ != nullptr && handshake_ != handshake_state::done;
    }
    /// Goes on with the TLS handshake without blocking: true once done; false with `would_block` (then wait, as after
    /// a read) or another error when it failed. The other models need not call it: their first reads do the handshake.
    bool handshake(boost::system::error_code& ec);

    /// The direction to wait for to go on after a read or write asked for `w` (the pool's workers poll for it).
    [[nodiscard]] boost::asio::socket_base::wait_type wait_for(boost::asio::socket_base::wait_type w) const noexcept
    {
        return want_ == want::read ? boost::asio::socket_base::wait_read
               : want_ == want::write ? boost::asio::socket_base::wait_write
                                      : w;
    }

    /// How long a connection waiting for its next request's first byte may wait: the idle timeout, but over TLS the
    /// header timeout until the first request's bytes arrive (the handshake and the first request are one exchange,
    /// as nginx's client_header_timeout covers both), so a handshake that stalls is closed as a slow head is.
    [[nodiscard]] std::chrono::milliseconds first_byte_timeout(const http::timeouts& timeouts) const noexcept
    {
        return ssl_ != nullptr && !read_any_ ? timeouts.header : timeouts.idle;
    }

    /// Cancels a pending wait (the pool's deadline timer).
    void cancel(boost::system::error_code& ec) { socket_.cancel(ec); }
    /// Says goodbye (TLS's close_notify, when the session is sound and it fits in the socket), stops sending and
    /// closes the socket; errors are of no interest to a connection that is leaving.
    void close();

    /// The socket's descriptor (the deadline sweep's handle).
    [[nodiscard]] int native_handle() noexcept { return socket_.native_handle(); }
    /// The executor the socket is bound to.
    [[nodiscard]] auto get_executor() noexcept { return socket_.get_executor(); }

private:
    enum class want : std::uint8_t { none, read, write };
    enum class handshake_state : std::uint8_t { pending, done, failed };

    template <class ConstBufferSequence>
    static boost::asio::const_buffer gather(const ConstBufferSequence& buffers)
    {
        // The first buffer alone when it fills a record or is all there is; else up to a record copied together.
        const auto total = boost::asio::buffer_size(buffers);
        for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers);
             ++it) {
            boost::asio::const_buffer first(*it);
            if (first.size() == 0)
                continue;
            if (first.size() == total || first.size() >= record_bytes)
                return first;
            break;
        }
        auto scratch = gather_scratch();
        return {scratch.data(), boost::asio::buffer_copy(boost::asio::buffer(scratch.data(), scratch.size()), buffers)};
    }

    /// The largest TLS record's plaintext.
    static constexpr std::size_t record_bytes = 16 * 1024;
    /// This thread's buffer for gathering a write into one record (a retry may gather again on another thread: the
    /// bytes are the same, and OpenSSL is told the buffer may move).
    static std::span<char> gather_scratch() noexcept;

    [[nodiscard]] bool alpn_h2() const noexcept;
    std::size_t tls_read(const boost::asio::mutable_buffer& buffer, boost::system::error_code& ec);
    std::size_t tls_write(const boost::asio::const_buffer& buffer, boost::system::error_code& ec);
    [[nodiscard]] bool tls_pending() const noexcept;
    /// Maps the failed OpenSSL call's `result` to `ec` (would_block with the direction to wait for, or a failure).
    void tls_failed(int result, boost::system::error_code& ec);
    /// Counts the handshake completed, once, when OpenSSL says it is.
    void note_handshake_progress() noexcept;
    /// Counts the handshake failed for `why`, if it was still pending.
    void handshake_ended(endpoints::handshake_failure why) noexcept;
    /// True when the failed first record was cleartext, by OpenSSL's verdict on its header (in its error queue).
    [[nodiscard]] bool first_record_was_cleartext() const noexcept;
    /// Answers cleartext sent to the TLS port with a `400` in cleartext (the connection closes next).
    void answer_plain_http();

    socket_type socket_;
    ssl_st* ssl_ = nullptr;
    endpoints::request_counters& counters_;
    want want_ = want::none;
    handshake_state handshake_ = handshake_state::pending;
    bool read_any_ = false;  // a TLS read has returned bytes: the handshake and the first request's start are in
    bool broken_ = false;  // a fatal TLS error (OpenSSL forbids SSL_shutdown then) or closed: no close_notify
};

}  // namespace execbench::models
