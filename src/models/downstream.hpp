#pragma once

#include "execbench/http/client.hpp"
#include "execbench/http/limits.hpp"
#include "execbench/http/url.hpp"

#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace execbench::models {

/// The keep-alive HTTP/1.1 client behind stage-1 downstream calls, written once for every model.
///
/// `async_get` is a composed operation taking any Asio completion token, as `offload_pool::async_run` does:
/// `use_future` and a blocking get() in `pool` (as the JDK's `HttpClient.send` blocks its caller while a selector
/// thread does the I/O), `yield` in `fiber`, a callback in `loop`. The policy is the same for all: take an idle
/// connection or connect, write, read, retry once on a fresh connection when a reused one turns out stale, keep the
/// connection when the answer leaves it reusable, judge the answer. Thread-safe: calls may start on any thread;
/// their I/O runs on the client's `io_context`.
class downstream_client {
public:
    using executor_type = boost::asio::io_context::executor_type;

    /// A client for `server` (resolved to `endpoints`) whose connections live on `executor`.
    downstream_client(executor_type executor, const http::url& server,
                      boost::asio::ip::tcp::resolver::results_type endpoints, const http::timeouts& timeouts);

    /// Sends GET `target` and completes with the outcome: `void(http::call_outcome)`.
    template <class CompletionToken>
    auto async_get(std::string_view target, CompletionToken&& token)
    {
        auto c = std::make_unique<call>();
        http::write_get_request(server_, target, c->request);
        return boost::asio::async_compose<CompletionToken, void(http::call_outcome)>(get_op{*this, std::move(c)}, token,
                                                                                     executor_);
    }

    /// Fails the calls in progress (their sockets are shut down) and every later call with `operation_aborted`: how
    /// a shutdown deadline ends calls that would otherwise block until the downstream timeout.
    void cancel();

private:
    using stream_type = boost::beast::tcp_stream;

    struct call {
        std::string request;
        std::unique_ptr<stream_type> stream;
        boost::beast::flat_buffer buffer;
        std::optional<http::downstream_parser> parser;
        bool reused = false;
    };

    struct get_op {
        enum class step { start, connected, written, read };
        downstream_client& client;
        std::unique_ptr<call> c;
        step next = step::start;

        template <class Self>
        void operator()(Self& self, boost::system::error_code ec = {}, std::size_t = 0)
        {
            switch (next) {
            case step::start:
                c->stream = client.take_idle();
                c->reused = c->stream != nullptr;
                if (!c->reused)
                    return connect(self);
                return write(self);
            case step::connected:
                if (ec)
                    return done(self, http::call_outcome::from_error(ec));
                c->stream->socket().set_option(boost::asio::ip::tcp::no_delay(true), ec);
                client.track(*c->stream);
                return write(self);
            case step::written:
                if (ec)
                    return retry_or_fail(self, ec);
                c->parser.emplace();
                http::configure(*c->parser);
                next = step::read;
                c->stream->expires_after(client.timeouts_.downstream_response);
                return boost::beast::http::async_read(*c->stream, c->buffer, *c->parser, std::move(self));
            case step::read:
                if (ec)
                    return retry_or_fail(self, ec);
                auto outcome = http::judge_response(*c->parser);
                if (c->parser->keep_alive() && c->buffer.size() == 0)
                    client.give_back(std::move(c->stream));
                return done(self, std::move(outcome));
            }
        }

        template <class Self>
        void operator()(Self& self, boost::system::error_code ec, const boost::asio::ip::tcp::endpoint&)
        {
            (*this)(self, ec);
        }

        template <class Self>
        void connect(Self& self)
        {
            if (client.cancelled_)
                return done(self, http::call_outcome::from_error(boost::asio::error::operation_aborted));
            c->reused = false;
            c->stream = std::make_unique<stream_type>(client.executor_);
            c->stream->expires_after(client.timeouts_.downstream_connect);
            next = step::connected;
            c->stream->async_connect(client.endpoints_, std::move(self));
        }

        template <class Self>
        void write(Self& self)
        {
            next = step::written;
            c->stream->expires_after(client.timeouts_.downstream_response);
            boost::asio::async_write(*c->stream, boost::asio::buffer(c->request), std::move(self));
        }

        template <class Self>
        void retry_or_fail(Self& self, boost::system::error_code ec)
        {
            client.untrack(*c->stream);
            // A pooled connection the server already closed fails at once: retry on a fresh one.
            if (c->reused && http::is_stale_connection_error(ec) && !client.cancelled_) {
                c->buffer.clear();
                return connect(self);
            }
            if (client.cancelled_)
                ec = boost::asio::error::operation_aborted;
            done(self, http::call_outcome::from_error(ec));
        }

        template <class Self>
        void done(Self& self, http::call_outcome outcome)
        {
            if (c->stream)
                client.untrack(*c->stream);
            c.reset();
            self.complete(std::move(outcome));
        }
    };

    std::unique_ptr<stream_type> take_idle();
    void give_back(std::unique_ptr<stream_type> stream);
    void track(stream_type& stream);
    void untrack(stream_type& stream);

    executor_type executor_;
    const http::url& server_;
    boost::asio::ip::tcp::resolver::results_type endpoints_;
    const http::timeouts& timeouts_;
    std::atomic<bool> cancelled_{false};
    std::mutex mutex_;  // callers on several threads (pool's workers, fiber's carriers) share the idle connections
    std::vector<std::unique_ptr<stream_type>> idle_;
    std::unordered_set<stream_type*> busy_;  // connections with a call on them, for cancel()
};

}  // namespace execbench::models
