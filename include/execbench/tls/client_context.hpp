#pragma once

#include "execbench/core/result.hpp"

#include <memory>
#include <string>
#include <string_view>

#include <openssl/ssl.h>

namespace execbench::tls {

/// How a client checks the server it speaks TLS to.
struct client_options {
    /// Check the server's certificate chain and name. Off by default, as in wrk and h2load: the servers under test
    /// run on loopback with self-signed certificates, and a benchmark measures them, not their certificates.
    bool verify = false;
    /// With `verify`: a PEM file of the CAs to trust; empty: OpenSSL's default paths.
    std::string ca_file;
};

/// The newest TLS session a connection slot received (a TLS 1.3 ticket or a TLS 1.2 session), offered by the slot's
/// next connection when resumption is on. Holds one reference; one thread uses it (its connection's).
class session_slot {
public:
    session_slot() = default;
    session_slot(const session_slot&) = delete;
    session_slot& operator=(const session_slot&) = delete;
    ~session_slot() { keep(nullptr); }

    /// Takes over the reference `s` holds (nullptr: forget), releasing the session held before.
    void keep(SSL_SESSION* s) noexcept
    {
        if (session_)
            SSL_SESSION_free(session_);
        session_ = s;
    }
    /// The session to offer, or nullptr before the first handshake.
    [[nodiscard]] SSL_SESSION* get() const noexcept { return session_; }

private:
    SSL_SESSION* session_ = nullptr;
};

/// One OpenSSL client context for every connection of a run, shared read-only by the generator's threads (OpenSSL
/// makes SSL objects from one SSL_CTX on many threads). TLS 1.2 and 1.3, ALPN http/1.1, sessions kept per slot
/// (session_slot) rather than in OpenSSL's cache, buffers released while a connection idles.
class client_context {
public:
    /// The context for `options`; fails with a message naming the CA file when it cannot be read.
    static result<std::shared_ptr<const client_context>> make(const client_options& options);

    client_context(const client_context&) = delete;
    client_context& operator=(const client_context&) = delete;
    ~client_context();

    /// A client SSL object on the connected socket `fd` (non-blocking or not), naming `host` (SNI and, with verify,
    /// the name checked; an address is sent as no SNI, as RFC 6066 says). With `slot`, it offers the slot's session
    /// and the sessions the server sends replace it; without, it resumes nothing. Nullptr when OpenSSL cannot make
    /// one (out of memory). Writes never raise SIGPIPE (MSG_NOSIGNAL), as Asio's do not.
    [[nodiscard]] SSL* open(int fd, std::string_view host, session_slot* slot) const;

    /// Names `host` on `ssl`, as open() does: SNI unless an address, and the name or address verification checks.
    void name_server(SSL* ssl, std::string_view host) const;

    /// The options the context was made with.
    [[nodiscard]] const client_options& options() const noexcept { return options_; }
    /// OpenSSL's context, for a stream that makes its own SSL objects (asio::ssl::stream).
    [[nodiscard]] SSL_CTX* native() const noexcept { return ctx_; }

private:
    client_context(SSL_CTX* ctx, client_options options) : ctx_(ctx), options_(std::move(options)) {}

    SSL_CTX* ctx_;
    client_options options_;
};

/// What a non-blocking TLS call came to.
enum class step {
    done,        ///< it completed (a read: bytes arrived)
    want_read,   ///< call again once the socket is readable
    want_write,  ///< call again once the socket is writable
    closed,      ///< the peer closed the connection (close_notify, or a close without it)
    failed,      ///< a protocol or system error: the connection is unusable (last_error says why)
};

/// The step of a call on `ssl` that returned `ret` (SSL_get_error's classes).
step step_of(const SSL* ssl, int ret) noexcept;

/// The first entry of this thread's OpenSSL error queue in words ("wrong version number"), or `fallback` when it is
/// empty; empties the queue, so a later call on this thread starts clean.
std::string last_error(std::string_view fallback);

}  // namespace execbench::tls
