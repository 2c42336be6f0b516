#include "transport.hpp"

#include "execbench/http/failure.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <array>
#include <cerrno>
#include <limits>
#include <utility>

namespace execbench::models {

namespace {
using error_code = boost::system::error_code;
}

transport::transport(socket_type socket, const tls::server_context* tls, endpoints::request_counters& counters)
    : socket_(std::move(socket)), counters_(counters)
{
    if (tls == nullptr)
        return;
    ssl_ = SSL_new(tls->native_handle());
    if (ssl_ == nullptr || SSL_set_fd(ssl_, socket_.native_handle()) != 1) {
        // Out of memory: the connection is refused by closing it, and its first read fails.
        ERR_clear_error();
        broken_ = true;
        error_code ec;
        socket_.close(ec);
        return;
    }
    SSL_set_accept_state(ssl_);
}

transport::transport(transport&& other) noexcept
    : socket_(std::move(other.socket_)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      counters_(other.counters_),
      want_(other.want_),
      handshake_(other.handshake_),
      read_any_(other.read_any_),
      broken_(other.broken_)
{
    // The handshake, counted or pending, moved with the session: the emptied one has none to count.
    other.broken_ = true;
}

bool transport::alpn_h2() const noexcept
{
    const unsigned char* chosen = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl_, &chosen, &length);
    return std::string_view(reinterpret_cast<const char*>(chosen), chosen != nullptr ? length : 0) == http2::alpn_id;
}

transport::~transport()
{
    if (ssl_ != nullptr)
        handshake_ended(endpoints::handshake_failure::abandoned);
    SSL_free(ssl_);
}

std::span<char> transport::gather_scratch() noexcept
{
    thread_local std::array<char, record_bytes> scratch;
    return scratch;
}

bool transport::tls_pending() const noexcept
{
    // Decrypted bytes of a record read in part: the socket will not say they are there.
    return SSL_pending(ssl_) > 0;
}

std::size_t transport::tls_read(const boost::asio::mutable_buffer& buffer, error_code& ec)
{
    std::size_t n = 0;
    ERR_clear_error();  // SSL_get_error reads this thread's queue, which other code may have left an error in
    const int r = SSL_read_ex(ssl_, buffer.data(), buffer.size(), &n);
    if (handshake_ == handshake_state::pending)
        note_handshake_progress();
    if (r == 1) {
        want_ = want::none;
        read_any_ = true;
        ec = {};
        return n;
    }
    tls_failed(r, ec);
    return 0;
}

bool transport::handshake(error_code& ec)
{
    ERR_clear_error();
    const int r = SSL_do_handshake(ssl_);
    if (r == 1) {
        note_handshake_progress();
        want_ = want::none;
        ec = {};
        return true;
    }
    tls_failed(r, ec);
    return false;
}

std::size_t transport::tls_write(const boost::asio::const_buffer& buffer, error_code& ec)
{
    ec = {};
    if (buffer.size() == 0)
        return 0;  // nothing to write is no record (OpenSSL calls an empty write an error)
    std::size_t n = 0;
    ERR_clear_error();
    const int r = SSL_write_ex(ssl_, buffer.data(), buffer.size(), &n);
    if (r == 1) {
        want_ = want::none;
        ec = {};
        return n;
    }
    tls_failed(r, ec);
    return 0;
}

void transport::tls_failed(int result, error_code& ec)
{
    switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_WANT_READ:
        want_ = want::read;
        ec = boost::asio::error::would_block;
        return;
    case SSL_ERROR_WANT_WRITE:
        want_ = want::write;
        ec = boost::asio::error::would_block;
        return;
    case SSL_ERROR_ZERO_RETURN:
        // The peer's close_notify: a clean end of stream, answered with ours on close.
        want_ = want::none;
        ec = boost::asio::error::eof;
        return;
    case SSL_ERROR_SYSCALL:
        ec = errno != 0 ? error_code(errno, boost::system::system_category()) : error_code(boost::asio::error::eof);
        break;
    default:
        // A failed handshake (no shared version or cipher), a bad record, or the peer's end of stream without
        // close_notify: the connection closes as on a reset, unanswered. Plain HTTP sent to this port is answered
        // first, as nginx answers it: the client hears why.
        ec = boost::asio::error::connection_reset;
        if (handshake_ != handshake_state::pending)
            break;
        if (first_record_was_cleartext()) {
            answer_plain_http();
            handshake_ended(endpoints::handshake_failure::plain_http);
        } else if (ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
            handshake_ended(endpoints::handshake_failure::abandoned);  // the client left (OpenSSL 3 calls it an error)
        } else {
            handshake_ended(endpoints::handshake_failure::tls_error);
        }
        break;
    }
    want_ = want::none;
    broken_ = true;
    ERR_clear_error();  // the queue is per thread, and the next connection on this thread must not read our error
}

void transport::note_handshake_progress() noexcept
{
    if (SSL_is_init_finished(ssl_) != 1)
        return;
    handshake_ = handshake_state::done;
    counters_.tls().handshake_completed(SSL_session_reused(ssl_) == 1);
}

void transport::handshake_ended(endpoints::handshake_failure why) noexcept
{
    if (handshake_ != handshake_state::pending)
        return;
    handshake_ = handshake_state::failed;
    counters_.tls().handshake_failed(why);
}

bool transport::first_record_was_cleartext() const noexcept
{
    // OpenSSL reads the first record's 5-byte header on every connection; when it is no TLS record it says why
    // without sending an alert: the start of an HTTP request (GET, POST, HEAD, PUT; CONNECT), or, for any other
    // bytes (DELETE, OPTIONS, ...), a version no TLS record carries. Either way the client is not speaking TLS.
    if (SSL_get_state(ssl_) != TLS_ST_BEFORE)
        return false;  // a ClientHello was read: what failed was TLS
    const auto reason = ERR_GET_REASON(ERR_peek_last_error());
    return reason == SSL_R_HTTP_REQUEST || reason == SSL_R_HTTPS_PROXY_REQUEST || reason == SSL_R_WRONG_VERSION_NUMBER;
}

void transport::answer_plain_http()
{
    // Read what else of the request has arrived, so closing does not reset the connection before the client reads
    // the answer (a request sent in one piece, as clients send one, is then read whole). The scratch buffer keeps
    // this off a fiber's stack.
    error_code ec;
    auto discard = gather_scratch();
    for (int i = 0; i < 4 && !ec; ++i)
        if (socket_.read_some(boost::asio::buffer(discard.data(), discard.size()), ec) == 0)
            break;
    http::response answer;
    http::make_error(http::failure::malformed_request, "plain HTTP request sent to the TLS port; use https://", answer);
    std::string out;
    http::serialize(answer, http::framing{.keep_alive = false}, out);
    // One non-blocking write: a new connection's send buffer is empty and takes these few hundred bytes whole.
    socket_.write_some(boost::asio::buffer(out), ec);
    counters_.request_rejected(answer.code);
}

void transport::close()
{
    error_code ec;
    if (ssl_ != nullptr && !broken_ && handshake_ == handshake_state::done && socket_.is_open()) {
        // One try: close_notify leaves if the socket has room; a client that is gone or full is not waited for.
        SSL_shutdown(ssl_);
        ERR_clear_error();
    }
    // Never again: once closed, the descriptor's number may belong to another connection.
    broken_ = true;
    socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
    socket_.close(ec);
}

}  // namespace execbench::models
