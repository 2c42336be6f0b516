#include "transport.hpp"

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

transport::transport(socket_type socket, const tls::server_context* tls) : socket_(std::move(socket))
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
      want_(other.want_),
      handshake_done_(other.handshake_done_),
      read_any_(other.read_any_),
      broken_(other.broken_)
{
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
    if (!handshake_done_)
        handshake_done_ = SSL_is_init_finished(ssl_) == 1;
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
        handshake_done_ = true;
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
        // A failed handshake (plain HTTP on this port, no shared cipher), a bad record, or the peer's end of stream
        // without close_notify: the connection closes as on a reset, unanswered.
        ec = boost::asio::error::connection_reset;
        break;
    }
    want_ = want::none;
    broken_ = true;
    ERR_clear_error();  // the queue is per thread, and the next connection on this thread must not read our error
}

void transport::close()
{
    error_code ec;
    if (ssl_ != nullptr && !broken_ && handshake_done_ && socket_.is_open()) {
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
