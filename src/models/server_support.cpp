#include "execbench/models/server_support.hpp"

#include "execbench/http/failure.hpp"
#include "execbench/models/server.hpp"
#include "execbench/http/request_parser.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <system_error>
#include <thread>

namespace execbench::models {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void open_acceptor(tcp::acceptor& acceptor, const std::string& host, std::uint16_t port)
{
    boost::system::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (ec)
        throw std::system_error(ec, "--host '" + host + "' is not an IP address");
    tcp::endpoint endpoint{address, port};
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint, ec);
    if (ec)
        throw std::system_error(ec, "cannot bind " + host + ":" + std::to_string(port));
    // Bursts of thousands of simultaneous connects are the point of some scenarios; the kernel caps this at
    // net.core.somaxconn anyway.
    acceptor.listen(listen_backlog);
}

tcp::resolver::results_type resolve_downstream(const http::url& downstream)
{
    asio::io_context io;
    tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto results = resolver.resolve(downstream.host, std::to_string(downstream.port), ec);
    if (ec)
        throw std::system_error(ec, "cannot resolve downstream host '" + downstream.host + "'");
    return results;
}

bool parse_buffered(http::request_parser& parser, boost::beast::flat_buffer& buffer, boost::system::error_code& ec)
{
    ec = {};
    while (buffer.size() != 0 && !parser.is_done()) {
        auto used = parser.put(buffer.data(), ec);
        buffer.consume(used);
        if (ec == boost::beast::http::error::need_more) {
            ec = {};
            break;
        }
        if (ec)
            return false;
    }
    return parser.is_done();
}

bool is_answerable_read_error(const boost::system::error_code& ec) noexcept
{
    namespace be = boost::beast::http;
    if (ec == be::error::end_of_stream || ec == be::error::partial_message)
        return false;
    return ec.category() == be::make_error_code(be::error::bad_method).category() ||
           ec.category() == http::request_error_category();
}

void reject(const boost::system::error_code& ec, http::response& out)
{
    std::string_view message;
    auto f = http::classify_parse_error(ec, message);
    http::make_error(f, message, out);
}

std::chrono::milliseconds accept_backoff(const boost::system::error_code& ec) noexcept
{
    if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
        ec.value() == ENFILE)
        return std::chrono::milliseconds(100);
    return std::chrono::milliseconds(5);
}

std::chrono::milliseconds sweep_period(const http::timeouts& timeouts) noexcept
{
    auto shortest = std::min({timeouts.header, timeouts.idle, timeouts.write});
    return std::clamp(shortest / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(250));
}

bool wait_for_drain(const endpoints::metrics& counters, std::chrono::steady_clock::time_point deadline)
{
    while (counters.in_flight() > 0) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

}  // namespace execbench::models
