#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <variant>

namespace execbench::models {

/// One connection of the Beast downstream clients: a Beast `tcp_stream`, under TLS (Beast's `ssl_stream`) when the
/// downstream's URL is https. Which one is chosen per client at start, so a call's code is the same for both: connect
/// and deadlines on `tcp()`, then `async_handshake` (nothing in cleartext), then reads and writes.
///
/// Why `ssl_stream` here when the server's connections use their own transport (docs/models.md, TLS): a downstream
/// client holds few connections (the pooled one, its cap) or short ones (per-call), so the 2 x 17 KiB of buffers an
/// `ssl_stream` keeps for its life cost little, and it is the stream Beast's own HTTPS clients use.
class downstream_stream {
public:
    using executor_type = boost::asio::any_io_executor;
    using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

    /// A cleartext connection when `tls` is null, a TLS client connection from `tls` otherwise; I/O on `executor`.
    downstream_stream(const executor_type& executor, boost::asio::ssl::context* tls) : stream_(make(executor, tls)) {}

    /// The TCP layer: connect, deadlines, the socket.
    boost::beast::tcp_stream& tcp() noexcept
    {
        if (auto* s = std::get_if<tls_stream>(&stream_))
            return s->next_layer();
        return std::get<boost::beast::tcp_stream>(stream_);
    }

    /// The TLS connection's OpenSSL object, or null in cleartext.
    SSL* tls_handle() noexcept
    {
        auto* s = std::get_if<tls_stream>(&stream_);
        return s ? s->native_handle() : nullptr;
    }

    /// The executor its I/O completes on.
    executor_type get_executor() noexcept { return tcp().get_executor(); }

    /// The client's TLS handshake, after connect; only when tls_handle() is not null.
    template <class Token>
    auto async_handshake(Token&& token)
    {
        return std::get<tls_stream>(stream_).async_handshake(boost::asio::ssl::stream_base::client,
                                                             std::forward<Token>(token));
    }

    /// Reads some bytes (the AsyncReadStream Beast's http::async_read takes).
    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token)
    {
        return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
            [this](auto handler, const MutableBuffers& b) {
                std::visit([&](auto& s) { s.async_read_some(b, std::move(handler)); }, stream_);
            },
            token, buffers);
    }

    /// Writes some bytes (the AsyncWriteStream asio::async_write takes).
    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token)
    {
        return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
            [this](auto handler, const ConstBuffers& b) {
                std::visit([&](auto& s) { s.async_write_some(b, std::move(handler)); }, stream_);
            },
            token, buffers);
    }

private:
    using variant_type = std::variant<boost::beast::tcp_stream, tls_stream>;

    static variant_type make(const executor_type& executor, boost::asio::ssl::context* tls)
    {
        if (tls)
            return variant_type(std::in_place_type<tls_stream>, executor, *tls);
        return variant_type(std::in_place_type<boost::beast::tcp_stream>, executor);
    }

    variant_type stream_;
};

}  // namespace execbench::models
