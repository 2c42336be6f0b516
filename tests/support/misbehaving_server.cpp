#include "support/misbehaving_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cctype>
#include <future>
#include <list>
#include <optional>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace execbench::test_support {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;

struct misbehaving_server::impl {
    struct session : std::enable_shared_from_this<session> {
        session(impl& s, tcp::socket sock) : server(s), socket(std::move(sock)), timer(socket.get_executor()) {}

        void do_read()
        {
            auto self = shared_from_this();
            socket.async_read_some(asio::buffer(chunk), [self](boost::system::error_code ec, std::size_t n) {
                if (ec)
                    return;
                self->input.append(self->chunk.data(), n);
                self->on_input();
            });
        }

        // Consumes complete requests (head plus Content-Length body) and answers them one at a time.
        void on_input()
        {
            auto end = input.find("\r\n\r\n");
            if (end == std::string::npos)
                return do_read();
            std::size_t body = 0;
            std::string head = input.substr(0, end);
            std::string lower = head;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
            auto cl = lower.find("content-length:");
            if (cl != std::string::npos)
                body = std::stoul(lower.substr(cl + 15));
            if (input.size() < end + 4 + body)
                return do_read();
            input.erase(0, end + 4 + body);
            respond();
        }

        void respond()
        {
            auto self = shared_from_this();
            switch (server.mode) {
            case behaviour::never_answer: return do_read();
            case behaviour::garbage: reply = "this is not HTTP at all\r\n\r\n"; break;
            case behaviour::close_mid_answer: reply = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"; break;
            case behaviour::status:
                reply = "HTTP/1.1 " + std::to_string(server.code) + " X\r\nContent-Length: 2\r\n\r\nno";
                break;
            default: reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
            }
            auto hold = server.stall.load();
            if (clock::now().time_since_epoch().count() < hold) {
                timer.expires_at(clock::time_point(clock::duration(hold)));
                timer.async_wait([self](boost::system::error_code ec) {
                    if (!ec)
                        self->write();
                });
                return;
            }
            write();
        }

        void write()
        {
            auto self = shared_from_this();
            asio::async_write(socket, asio::buffer(reply), [self](boost::system::error_code ec, std::size_t) {
                if (ec)
                    return;
                self->server.answered.fetch_add(1);
                if (!self->answered_one) {
                    self->answered_one = true;
                    self->server.used.fetch_add(1);
                }
                if (self->server.mode == behaviour::close_after_one || self->server.mode == behaviour::garbage ||
                    self->server.mode == behaviour::close_mid_answer) {
                    boost::system::error_code ignored;
                    self->socket.close(ignored);
                    return;
                }
                self->on_input();
            });
        }

        impl& server;
        tcp::socket socket;
        asio::steady_timer timer;
        std::array<char, 4096> chunk{};
        std::string input;
        std::string reply;
        bool answered_one = false;
    };

    impl(behaviour b, int status_code)
        : mode(b), code(status_code), acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0))
    {
        acceptor.listen(4096);
        port = acceptor.local_endpoint().port();
        do_accept();
        guard.emplace(ioc.get_executor());  // die() must still be able to post after the last session ended
        thread = std::thread([this] { ioc.run(); });
    }

    void do_accept()
    {
        acceptor.async_accept([this](boost::system::error_code ec, tcp::socket sock) {
            if (ec)
                return;
            accepted.fetch_add(1);
            auto s = std::make_shared<session>(*this, std::move(sock));
            sessions.push_back(s);
            s->do_read();
            do_accept();
        });
    }

    void close_everything()
    {
        boost::system::error_code ignored;
        acceptor.close(ignored);
        for (auto& w : sessions)
            if (auto s = w.lock()) {
                s->socket.close(ignored);
                s->timer.cancel();
            }
        sessions.clear();
    }

    behaviour mode;
    int code;
    asio::io_context ioc;
    tcp::acceptor acceptor;
    std::uint16_t port = 0;
    std::list<std::weak_ptr<session>> sessions;
    std::atomic<clock::rep> stall{0};
    std::atomic<std::uint64_t> answered{0};
    std::atomic<std::uint64_t> accepted{0};
    std::atomic<std::uint64_t> used{0};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
    std::thread thread;
};

misbehaving_server::misbehaving_server(behaviour b, int status_code) : impl_(std::make_unique<impl>(b, status_code)) {}

misbehaving_server::~misbehaving_server()
{
    die();
    impl_->guard.reset();
    impl_->ioc.stop();
    impl_->thread.join();
}

std::uint16_t misbehaving_server::port() const noexcept
{
    return impl_->port;
}

std::string misbehaving_server::url() const
{
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void misbehaving_server::stall_until(std::chrono::steady_clock::time_point until)
{
    impl_->stall.store(until.time_since_epoch().count());
}

void misbehaving_server::die()
{
    std::promise<void> done;
    auto f = done.get_future();
    asio::post(impl_->ioc, [this, &done] {
        impl_->close_everything();
        done.set_value();
    });
    f.wait_for(std::chrono::seconds{5});
}

std::uint64_t misbehaving_server::answered() const noexcept
{
    return impl_->answered.load();
}

std::uint64_t misbehaving_server::accepted() const noexcept
{
    return impl_->accepted.load();
}

std::uint64_t misbehaving_server::used() const noexcept
{
    return impl_->used.load();
}

refused_port::refused_port() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0))
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        if (fd_ >= 0)
            ::close(fd_);
        throw std::runtime_error("refused_port: cannot bind a loopback port");
    }
    port_ = ntohs(a.sin_port);
}

refused_port::~refused_port()
{
    ::close(fd_);
}

std::string refused_port::url() const
{
    return "http://127.0.0.1:" + std::to_string(port_);
}

}  // namespace execbench::test_support
