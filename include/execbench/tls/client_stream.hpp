#pragma once

#include "execbench/tls/client_context.hpp"

#include <cstddef>
#include <string_view>

namespace execbench::tls {

/// ALPN's wire format offering HTTP/2 alone (client_stream::begin): a server that cannot speak it selects nothing.
inline constexpr std::string_view alpn_h2{"\x02h2", 3};

/// One client connection's TLS on a non-blocking socket the caller owns and waits on: each call does what it can now
/// and says what to wait for (step), as wrk drives OpenSSL from its event loop. No buffers of its own: reads go
/// straight into the caller's buffer, writes come from it (a write that must wait is retried with the same bytes).
class client_stream {
public:
    client_stream() = default;
    client_stream(const client_stream&) = delete;
    client_stream& operator=(const client_stream&) = delete;
    ~client_stream() { reset(); }

    /// Starts a client handshake on connected socket `fd` (client_context::open); false when OpenSSL cannot make the
    /// connection's object. `alpn`: the protocols to offer instead of the context's http/1.1, in ALPN's wire format
    /// (alpn_h2); empty: the context's.
    bool begin(const client_context& ctx, int fd, std::string_view host, session_slot* slot,
               std::string_view alpn = {});
    /// A TLS connection was begun and not reset.
    [[nodiscard]] bool active() const noexcept { return ssl_ != nullptr; }
    /// Advances the handshake.
    step handshake() noexcept;
    /// The handshake resumed an earlier session (no certificate, no key exchange's signature).
    [[nodiscard]] bool resumed() const noexcept;
    /// The protocol the server selected by ALPN once the handshake is done ("h2", "http/1.1"); empty: none.
    [[nodiscard]] std::string_view alpn() const noexcept;
    /// Reads up to `size` bytes into `data`; `got` is how many on step::done. Call it before waiting for the socket:
    /// OpenSSL may hold bytes already read (a record larger than the last read's room, or read ahead).
    step read(void* data, std::size_t size, std::size_t& got) noexcept;
    /// Writes all of `data` (step::done), or retry with the same bytes after the wait it names.
    step write(const void* data, std::size_t size) noexcept;
    /// Sends close_notify when the connection is still sound (one try, never waits), then forgets the connection.
    /// The socket stays the caller's to close.
    void close() noexcept;
    /// Forgets the connection without a word to the peer (after a failure).
    void reset() noexcept;

private:
    SSL* ssl_ = nullptr;
    bool sound_ = false;  // the handshake completed and nothing failed since
};

}  // namespace execbench::tls
