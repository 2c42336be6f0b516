#include "support/raw_client.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace execbench::test_support {

namespace {

using clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what)
{
    throw std::runtime_error("raw_client: " + what);
}

[[noreturn]] void fail_errno(const std::string& what)
{
    fail(what + ": " + std::strerror(errno));
}

// Waits for `events` on `fd` until `deadline`; false when the deadline passed first.
bool wait_ready(int fd, short events, clock::time_point deadline)
{
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
        if (left <= 0)
            return false;
        pollfd p{fd, events, 0};
        int r = ::poll(&p, 1, static_cast<int>(left));
        if (r > 0)
            return true;
        if (r < 0 && errno != EINTR)
            fail_errno("poll");
    }
}

}  // namespace

bool header_name_less::operator()(const std::string& a, const std::string& b) const noexcept
{
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
    });
}

std::string raw_response::header(const std::string& name) const
{
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

raw_client::raw_client(std::uint16_t port, client_options options, std::chrono::milliseconds timeout)
{
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0)
        fail_errno("socket");
    // The receive buffer must be set before connect: the window scale is agreed in the handshake.
    if (options.receive_buffer_bytes > 0 &&
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer_bytes, sizeof(int)) != 0)
        fail_errno("SO_RCVBUF");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        if (errno != EINPROGRESS)
            fail_errno("connect to port " + std::to_string(port));
        if (!wait_ready(fd_, POLLOUT, clock::now() + timeout))
            fail("connect to port " + std::to_string(port) + " timed out");
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
            errno = error;
            fail_errno("connect to port " + std::to_string(port));
        }
    }
}

raw_client::~raw_client()
{
    if (fd_ >= 0)
        ::close(fd_);
}

void raw_client::send(std::string_view bytes, std::chrono::milliseconds timeout)
{
    auto deadline = clock::now() + timeout;
    while (!bytes.empty()) {
        auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n > 0) {
            bytes.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            fail_errno("send");
        if (!wait_ready(fd_, POLLOUT, deadline))
            fail("send timed out with " + std::to_string(bytes.size()) + " bytes unsent");
    }
}

void raw_client::send_get(std::string_view target, std::string_view extra_headers, std::chrono::milliseconds timeout)
{
    std::string request = "GET ";
    request.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n").append(extra_headers).append("\r\n");
    send(request, timeout);
}

raw_response raw_client::get(std::string_view target, std::string_view extra_headers, std::chrono::milliseconds timeout)
{
    send_get(target, extra_headers, timeout);
    return read_response(timeout);
}

raw_response raw_client::read_response(std::chrono::milliseconds timeout)
{
    auto deadline = clock::now() + timeout;
    auto response = read_head(timeout);
    std::string body;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (!read_body_some(body, std::max(left, std::chrono::milliseconds(1))))
            break;
    }
    response.body = std::move(body);
    return response;
}

std::string raw_client::read_response_bytes(std::chrono::milliseconds timeout)
{
    std::string wire;
    wire_ = &wire;
    try {
        read_response(timeout);
    } catch (...) {
        wire_ = nullptr;
        throw;
    }
    wire_ = nullptr;
    return wire;
}

raw_response raw_client::read_head(std::chrono::milliseconds timeout)
{
    auto deadline = clock::now() + timeout;
    parser_.emplace();
    parser_->eager(true);
    parser_->body_limit(boost::none);  // streams are consumed as they arrive, so their length does not matter
    for (;;) {
        feed();
        if (parser_->is_header_done())
            return head_of(*parser_);
        if (fill(deadline, "the head of a response") == 0)
            fail("connection closed before a complete response head" +
                 (buffer_.empty() ? std::string() : " (unparsed: '" + buffer_.substr(0, 80) + "')"));
    }
}

bool raw_client::read_body_some(std::string& out, std::chrono::milliseconds timeout)
{
    if (!parser_)
        fail("read_body_some without a response head");
    auto deadline = clock::now() + timeout;
    for (;;) {
        feed();
        auto& body = parser_->get().body();
        out.append(body);
        const bool got = !body.empty();
        body.clear();
        if (parser_->is_done()) {
            parser_.reset();
            return false;
        }
        if (got)
            return true;
        if (fill(deadline, "more of a response body") == 0) {
            boost::beast::error_code ec;
            if (parser_->need_eof())
                parser_->put_eof(ec);
            if (!parser_->need_eof() || ec)
                fail("connection closed in the middle of a response body");
        }
    }
}

bool raw_client::wait_for_close(std::chrono::milliseconds timeout)
{
    auto deadline = clock::now() + timeout;
    for (;;) {
        buffer_.clear();
        if (!wait_ready(fd_, POLLIN, deadline))
            return false;
        char chunk[16 * 1024];
        auto n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return true;
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            fail_errno("recv while waiting for close");
    }
}

std::string raw_client::read_until_close(std::chrono::milliseconds timeout)
{
    auto deadline = clock::now() + timeout;
    while (fill(deadline, "the server to close the connection") != 0) {
    }
    return std::exchange(buffer_, {});
}

void raw_client::shutdown_send()
{
    ::shutdown(fd_, SHUT_WR);
}

std::size_t raw_client::fill(clock::time_point deadline, const char* waiting_for)
{
    for (;;) {
        char chunk[64 * 1024];
        auto n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n > 0) {
            buffer_.append(chunk, static_cast<std::size_t>(n));
            return static_cast<std::size_t>(n);
        }
        if (n == 0 || errno == ECONNRESET)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            fail_errno("recv");
        if (!wait_ready(fd_, POLLIN, deadline))
            fail(std::string("timed out waiting for ") + waiting_for);
    }
}

void raw_client::feed()
{
    while (!buffer_.empty() && !parser_->is_done()) {
        boost::beast::error_code ec;
        auto used = parser_->put(boost::asio::buffer(buffer_), ec);
        if (wire_)
            wire_->append(buffer_, 0, used);
        buffer_.erase(0, used);
        if (ec == boost::beast::http::error::need_more)
            return;
        if (ec)
            fail("cannot parse the response: " + ec.message());
        if (used == 0)
            return;
    }
}

raw_response raw_client::head_of(const parser_type& parser) const
{
    raw_response response;
    const auto& message = parser.get();
    response.status = message.result_int();
    for (const auto& field : message)
        response.headers[std::string(field.name_string())] = std::string(field.value());
    response.keep_alive = message.keep_alive();
    response.chunked = parser.chunked();
    return response;
}

}  // namespace execbench::test_support
