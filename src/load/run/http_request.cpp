#include "execbench/load/run/http_request.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace execbench::load::detail {

result<simple_response> http_get(const boost::asio::ip::tcp::endpoint& ep, std::string_view host_header,
                                 std::string_view path, std::chrono::milliseconds timeout)
{
    return http_request(ep, host_header, "GET", path, {}, {}, timeout);
}

result<simple_response> http_request(const boost::asio::ip::tcp::endpoint& ep, std::string_view host_header,
                                     std::string_view method, std::string_view path,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     const std::string& body, std::chrono::milliseconds timeout)
{
    namespace beast = boost::beast;
    namespace http = beast::http;
    boost::asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(path);
    req.version(11);
    req.set(http::field::host, host_header);
    req.set(http::field::user_agent, "execbench-load");
    req.set(http::field::connection, "close");
    for (const auto& [name, value] : headers)
        req.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT") {
        req.body() = body;
        req.prepare_payload();
    }
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(8 * 1024 * 1024);
    beast::error_code failure;
    stream.expires_after(timeout);
    stream.async_connect(ep, [&](beast::error_code ec) {
        if (ec)
            return void(failure = ec);
        http::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
            if (ec)
                return void(failure = ec);
            http::async_read(stream, buffer, parser, [&](beast::error_code ec, std::size_t) { failure = ec; });
        });
    });
    ioc.run();
    if (failure == boost::asio::error::connection_refused)
        return fail("connection refused: nothing listens on " + ep.address().to_string() + ":" +
                    std::to_string(ep.port()));
    if (failure == beast::error::timeout)
        return fail("no answer within " + std::to_string(timeout.count()) + "ms");
    if (failure)
        return fail(failure.message());
    simple_response r;
    r.status = parser.get().result_int();
    r.body = std::move(parser.get().body());
    return r;
}

}  // namespace execbench::load::detail
