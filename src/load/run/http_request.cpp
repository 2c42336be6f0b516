#include "execbench/load/run/http_request.hpp"

#include "execbench/load/engine/target.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <optional>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace execbench::load::detail {

namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = boost::asio::ssl;

/// Writes `req` on `stream` and reads the answer into `parser`, recording the first failure in `failure`.
template <class Stream>
void exchange(Stream& stream, bhttp::request<bhttp::string_body>& req, beast::flat_buffer& buffer,
              bhttp::response_parser<bhttp::string_body>& parser, beast::error_code& failure)
{
    bhttp::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
        if (ec)
            return void(failure = ec);
        bhttp::async_read(stream, buffer, parser, [&](beast::error_code ec, std::size_t) { failure = ec; });
    });
}

}  // namespace

request_peer request_peer::of(const target& t)
{
    return {t.endpoints.front(), t.host_header, t.tls.get(), t.host};
}

result<simple_response> http_get(const request_peer& peer, std::string_view path, std::chrono::milliseconds timeout)
{
    return http_request(peer, "GET", path, {}, {}, timeout);
}

result<simple_response> http_request(const request_peer& peer, std::string_view method, std::string_view path,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     const std::string& body, std::chrono::milliseconds timeout)
{
    boost::asio::io_context ioc;
    beast::tcp_stream tcp(ioc);
    // Over TLS, Asio's stream on the same TCP stream (its deadline covers the handshake); off the load path, where
    // the engine drives OpenSSL itself.
    std::optional<ssl::context> tls_context;
    std::optional<ssl::stream<beast::tcp_stream&>> tls;
    if (peer.tls) {
        SSL_CTX_up_ref(peer.tls->native());  // Asio's context takes a reference of its own
        tls_context.emplace(peer.tls->native());
        tls.emplace(tcp, *tls_context);
        peer.tls->name_server(tls->native_handle(), peer.tls_host);
    }
    bhttp::request<bhttp::string_body> req;
    req.method_string(method);
    req.target(path);
    req.version(11);
    req.set(bhttp::field::host, peer.host_header);
    req.set(bhttp::field::user_agent, "execbench-load");
    req.set(bhttp::field::connection, "close");
    for (const auto& [name, value] : headers)
        req.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT") {
        req.body() = body;
        req.prepare_payload();
    }
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(8 * 1024 * 1024);
    beast::error_code failure;
    bool handshake_failed = false;
    tcp.expires_after(timeout);
    tcp.async_connect(peer.endpoint, [&](beast::error_code ec) {
        if (ec)
            return void(failure = ec);
        if (!tls)
            return exchange(tcp, req, buffer, parser, failure);
        tls->async_handshake(ssl::stream_base::client, [&](beast::error_code ec) {
            if (ec) {
                handshake_failed = true;
                return void(failure = ec);
            }
            exchange(*tls, req, buffer, parser, failure);
        });
    });
    ioc.run();
    const auto where = peer.endpoint.address().to_string() + ":" + std::to_string(peer.endpoint.port());
    if (failure == boost::asio::error::connection_refused)
        return fail("connection refused: nothing listens on " + where);
    if (failure == beast::error::timeout)
        return fail("no answer within " + std::to_string(timeout.count()) + "ms" +
                    (tls && !handshake_failed && !parser.got_some() ? " (TLS handshake included)" : ""));
    if (handshake_failed) {
        const bool unchecked =
            failure.category() == boost::asio::error::get_ssl_category() &&
            ERR_GET_REASON(static_cast<unsigned long>(failure.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED;
        return fail("TLS handshake with " + where + " failed: " + failure.message() +
                    (unchecked ? " (--tls-verify checks against the system's CAs; --tls-ca FILE names the CAs to trust)"
                               : " (is it an https server? a cleartext one needs an http:// URL)"));
    }
    if (failure == ssl::error::stream_truncated && parser.is_done())
        failure = {};  // closed without close_notify after a whole response: the close ended nothing of it
    if (failure)
        return fail(failure.message());
    simple_response r;
    r.status = parser.get().result_int();
    r.body = std::move(parser.get().body());
    return r;
}

}  // namespace execbench::load::detail
