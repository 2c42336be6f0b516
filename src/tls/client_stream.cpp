#include "execbench/tls/client_stream.hpp"

#include <openssl/err.h>

namespace execbench::tls {

bool client_stream::begin(const client_context& ctx, int fd, std::string_view host, session_slot* slot,
                          std::string_view alpn)
{
    reset();
    ssl_ = ctx.open(fd, host, slot);
    if (ssl_ && !alpn.empty() &&
        SSL_set_alpn_protos(ssl_, reinterpret_cast<const unsigned char*>(alpn.data()),
                            static_cast<unsigned>(alpn.size())) != 0)
        reset();  // OpenSSL returns 0 on success here
    return ssl_ != nullptr;
}

step client_stream::handshake() noexcept
{
    int r = SSL_do_handshake(ssl_);
    if (r == 1) {
        sound_ = true;
        return step::done;
    }
    return step_of(ssl_, r);
}

bool client_stream::resumed() const noexcept
{
    return ssl_ && SSL_session_reused(ssl_) == 1;
}

std::string_view client_stream::alpn() const noexcept
{
    const unsigned char* name = nullptr;
    unsigned size = 0;
    if (ssl_)
        SSL_get0_alpn_selected(ssl_, &name, &size);
    return name ? std::string_view(reinterpret_cast<const char*>(name), size) : std::string_view{};
}

step client_stream::read(void* data, std::size_t size, std::size_t& got) noexcept
{
    got = 0;
    if (SSL_read_ex(ssl_, data, size, &got) == 1)
        return step::done;
    auto s = step_of(ssl_, 0);
    if (s == step::failed || s == step::closed)
        sound_ = false;  // nothing more to say to a peer that left
    return s;
}

step client_stream::write(const void* data, std::size_t size) noexcept
{
    std::size_t written = 0;
    // Without SSL_MODE_ENABLE_PARTIAL_WRITE a write succeeds only whole; one that must wait keeps its place.
    if (SSL_write_ex(ssl_, data, size, &written) == 1)
        return step::done;
    auto s = step_of(ssl_, 0);
    if (s == step::failed || s == step::closed)
        sound_ = false;
    return s;
}

void client_stream::close() noexcept
{
    if (ssl_ && sound_)
        (void)SSL_shutdown(ssl_);  // the alert goes out if the socket takes it now; the answer is not awaited
    reset();
}

void client_stream::reset() noexcept
{
    if (ssl_)
        SSL_free(ssl_);
    ssl_ = nullptr;
    sound_ = false;
    ERR_clear_error();
}

}  // namespace execbench::tls
