#include "execbench/tls/client_context.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <cerrno>

#include <arpa/inet.h>
#include <sys/socket.h>

namespace execbench::tls {

namespace {

/// Where an SSL object finds its connection's session_slot (the new-session callback's only way back).
int slot_index()
{
    static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

/// A session the server sent (after the handshake in TLS 1.3, in it in 1.2): the slot keeps the newest, so the next
/// connection offers a ticket the server has not yet seen used.
int on_new_session(SSL* ssl, SSL_SESSION* session)
{
    auto* slot = static_cast<session_slot*>(SSL_get_ex_data(ssl, slot_index()));
    if (!slot)
        return 0;  // OpenSSL frees it
    slot->keep(session);
    return 1;  // the slot holds the reference now
}

/// A socket write that cannot raise SIGPIPE: a server that closed first must cost a counted reset, not the process.
/// OpenSSL's socket BIO writes with write(2); this one sends with MSG_NOSIGNAL and is the socket BIO otherwise.
int send_without_signal(BIO* b, const char* data, int size)
{
    int fd = -1;
    BIO_get_fd(b, &fd);
    errno = 0;
    auto n = ::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    BIO_clear_retry_flags(b);
    if (n <= 0 && BIO_sock_should_retry(static_cast<int>(n)))
        BIO_set_retry_write(b);
    return static_cast<int>(n);
}

const BIO_METHOD* socket_method()
{
    static BIO_METHOD* method = [] {
        const BIO_METHOD* plain = BIO_s_socket();
        BIO_METHOD* m =
            BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "execbench socket");
        BIO_meth_set_write(m, send_without_signal);
        BIO_meth_set_read(m, BIO_meth_get_read(plain));
        BIO_meth_set_puts(m, BIO_meth_get_puts(plain));
        BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(plain));
        BIO_meth_set_create(m, BIO_meth_get_create(plain));
        BIO_meth_set_destroy(m, BIO_meth_get_destroy(plain));
        return m;
    }();
    return method;
}

bool is_address(const std::string& host)
{
    unsigned char buf[sizeof(in6_addr)];
    return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

result<std::shared_ptr<const client_context>> client_context::make(const client_options& options)
{
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        return fail("TLS: cannot make a client context: " + last_error("out of memory"));
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // Idle connections hold no read or write buffers (about 34 KB each otherwise); a read takes what the socket has
    // in one call rather than a record header and then its body.
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_read_ahead(ctx, 1);
    // A server that closes without close_notify after a response delimited by its length ended the connection, not
    // an attack: the HTTP reader decides whether the response was whole.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(ctx, alpn, sizeof alpn);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    if (options.verify) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        int loaded = options.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx)
                                             : SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr);
        if (loaded != 1) {
            SSL_CTX_free(ctx);
            return fail("--tls-verify: cannot read the CAs" +
                        (options.ca_file.empty() ? std::string{} : " in '" + options.ca_file + "'") + ": " +
                        last_error("no certificates"));
        }
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    }
    return std::shared_ptr<const client_context>(new client_context(ctx, options));
}

client_context::~client_context()
{
    SSL_CTX_free(ctx_);
}

SSL* client_context::open(int fd, std::string_view host, session_slot* slot) const
{
    SSL* ssl = SSL_new(ctx_);
    if (!ssl)
        return nullptr;
    BIO* bio = BIO_new(socket_method());
    if (!bio) {
        SSL_free(ssl);
        return nullptr;
    }
    BIO_set_fd(bio, fd, BIO_NOCLOSE);
    SSL_set_bio(ssl, bio, bio);
    SSL_set_connect_state(ssl);
    name_server(ssl, host);
    if (slot) {
        SSL_set_ex_data(ssl, slot_index(), slot);
        if (slot->get())
            SSL_set_session(ssl, slot->get());
    }
    return ssl;
}

void client_context::name_server(SSL* ssl, std::string_view host) const
{
    std::string name(host);
    const bool address = is_address(name);
    if (!address)
        SSL_set_tlsext_host_name(ssl, name.c_str());
    if (options_.verify) {
        if (address)
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
        else
            SSL_set1_host(ssl, name.c_str());
    }
}

step step_of(const SSL* ssl, int ret) noexcept
{
    switch (SSL_get_error(ssl, ret)) {
    case SSL_ERROR_NONE: return step::done;
    case SSL_ERROR_WANT_READ: return step::want_read;
    case SSL_ERROR_WANT_WRITE: return step::want_write;
    case SSL_ERROR_ZERO_RETURN: return step::closed;
    case SSL_ERROR_SYSCALL:
        // Without an error queue entry and errno 0, the peer closed the socket (an unexpected EOF, ignored above).
        return ERR_peek_error() == 0 && errno == 0 ? step::closed : step::failed;
    default: return step::failed;
    }
}

std::string last_error(std::string_view fallback)
{
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0)
        return std::string(fallback);
    const char* reason = ERR_reason_error_string(code);
    if (reason)
        return reason;
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    return buf;
}

}  // namespace execbench::tls
