#pragma once

#include "connection_cap.hpp"
#include "downstream.hpp"
#include "downstream_stream.hpp"

#include "execbench/tls/client_context.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
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

/// The HTTP/1.1 clients of `--downstream-client pooled` and `per-call`, on Beast, written once for every model.
///
/// One composed operation serves both: take a permit (`--downstream-connections`), take an idle connection or
/// connect, write, read, judge the answer. `pooled` retries once on a fresh connection when a reused one turns out
/// stale, and keeps the connection when the answer leaves it reusable; `per-call` asks for `Connection: close` and
/// closes the connection after every call. An https downstream adds a TLS handshake after connect
/// (`downstream_stream`). The operation runs on the client's `io_context`; calls may start on any thread (pool's
/// workers, fiber's carriers), so the idle connections are locked.
///
/// `Executor` is the io_context's own executor when one thread runs it (pool's poller, loop's and coro's event
/// loops), or a strand on it when several do (fiber's carriers): a Beast stream's timeout handler must not run on one
/// carrier while the call's read completes, and destroys the stream, on another (ThreadSanitizer found it; a call
/// that timed out then answered 502 "operation canceled" instead of 504). A strand where no thread contends still
/// costs every completion a trip through the strand's queue and lock and copies of its shared state
/// (docs/models.md, "The downstream client's cost"), so only fiber pays it.
template <class Executor>
class beast_client final : public downstream_client {
public:
    /// A client as `setup` says; `reuse` false makes it the per-call client. Throws when an https downstream's TLS
    /// context cannot be made (the CA file unreadable).
    beast_client(const downstream_setup& setup, bool reuse);

    void cancel() override;

protected:
    void start_get(std::string_view target, handler_type handler) override
    {
        counters_.call_made();
        auto c = std::make_unique<call>();
        http::write_get_request(server_, target, c->request, reuse_);
        // Bound to the client's executor on every model's own executor (the loop's, the fibers', the coroutines') or,
        // for the pool's future, any: Boost 1.81's type-erased executor cannot be asked for the `blocking.never`
        // that Beast's read requires.
        auto bound = boost::asio::bind_executor(executor_, std::move(handler));
        boost::asio::async_compose<decltype(bound), void(http::call_outcome)>(get_op{*this, std::move(c)}, bound,
                                                                             executor_);
    }

private:
    using stream_type = downstream_stream;

    struct call {
        std::string request;
        std::unique_ptr<stream_type> stream;
        boost::beast::flat_buffer buffer;
        std::optional<http::downstream_parser> parser;
        bool reused = false;
        bool permitted = false;  // holds a permit of the cap
    };

    struct get_op {
        enum class step { start, permitted, connected, handshaken, written, read };
        beast_client& client;
        std::unique_ptr<call> c;
        step next = step::start;

        template <class Self>
        void operator()(Self& self, boost::system::error_code ec = {}, std::size_t = 0)
        {
            switch (next) {
            case step::start:
                if (!client.cap_.try_acquire()) {
                    next = step::permitted;
                    return client.cap_.async_wait(std::move(self));
                }
                c->permitted = true;
                [[fallthrough]];
            case step::permitted:
                c->stream = client.take_idle();
                c->reused = c->stream != nullptr;
                if (!c->reused)
                    return connect(self);
                return write(self);
            case step::connected:
                if (ec)
                    return retry_or_fail(self, ec);
                c->stream->tcp().socket().set_option(boost::asio::ip::tcp::no_delay(true), ec);
                client.track(*c->stream);
                if (auto* ssl = c->stream->tls_handle()) {
                    client.tls_context_->name_server(ssl, client.server_.host);
                    next = step::handshaken;
                    return c->stream->async_handshake(std::move(self));
                }
                return write(self);
            case step::handshaken:
                if (ec)
                    return retry_or_fail(self, ec);
                return write(self);
            case step::written:
                if (ec)
                    return retry_or_fail(self, ec);
                c->parser.emplace();
                http::configure(*c->parser);
                next = step::read;
                c->stream->tcp().expires_after(client.timeouts_.downstream_response);
                return boost::beast::http::async_read(*c->stream, c->buffer, *c->parser, std::move(self));
            case step::read:
                if (ec)
                    return retry_or_fail(self, ec);
                auto outcome = http::judge_response(*c->parser);
                if (client.reuse_ && c->parser->keep_alive() && c->buffer.size() == 0)
                    client.give_back(std::move(c->stream));
                return done(self, std::move(outcome));
            }
        }

        template <class Self>
        void operator()(Self& self, boost::system::error_code ec, const boost::asio::ip::tcp::endpoint&)
        {
            (*this)(self, ec);
        }

        /// The cap's answer after a wait for a permit.
        template <class Self>
        void operator()(Self& self, http::call_outcome permit)
        {
            if (permit.failed)
                return done(self, std::move(permit));
            c->permitted = true;
            (*this)(self);
        }

        template <class Self>
        void connect(Self& self)
        {
            if (client.cancelled_)
                return done(self, http::call_outcome::from_error(boost::asio::error::operation_aborted));
            c->reused = false;
            c->stream = std::make_unique<stream_type>(client.executor_, client.tls_ ? &*client.tls_ : nullptr);
            // The connect deadline covers the TLS handshake too: both are the connection's setting up.
            c->stream->tcp().expires_after(client.timeouts_.downstream_connect);
            client.counters_.connection_opened();
            next = step::connected;
            c->stream->tcp().async_connect(client.endpoints_, std::move(self));
        }

        template <class Self>
        void write(Self& self)
        {
            if (c->reused)
                client.counters_.connection_reused();
            next = step::written;
            c->stream->tcp().expires_after(client.timeouts_.downstream_response);
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
            else if (ec == boost::asio::error::operation_aborted)
                // Nothing but the stream's own deadline aborts a call that was not cancelled. With several threads
                // on the io_context (fiber's carriers) the aborted read can complete before the stream's timeout
                // handler has marked it timed out, so the stream does not always say `timeout` itself.
                ec = boost::beast::error::timeout;
            done(self, http::call_outcome::from_error(ec));
        }

        template <class Self>
        void done(Self& self, http::call_outcome outcome)
        {
            if (c->stream)
                client.untrack(*c->stream);
            if (c->permitted)
                client.cap_.release();
            c.reset();
            self.complete(std::move(outcome));
        }
    };

    std::unique_ptr<stream_type> take_idle();
    void give_back(std::unique_ptr<stream_type> stream);
    void track(stream_type& stream);
    void untrack(stream_type& stream);

    Executor executor_;
    const http::url& server_;
    boost::asio::ip::tcp::resolver::results_type endpoints_;
    const http::timeouts& timeouts_;
    endpoints::downstream_counters& counters_;
    bool reuse_;
    connection_cap cap_;
    std::shared_ptr<const tls::client_context> tls_context_;  // https: how the server is checked and named
    std::optional<boost::asio::ssl::context> tls_;  // https: the same OpenSSL context, as Beast's ssl_stream takes it
    std::atomic<bool> cancelled_{false};
    std::mutex mutex_;  // callers on several threads (pool's workers, fiber's carriers) share the idle connections
    std::vector<std::unique_ptr<stream_type>> idle_;
    std::unordered_set<stream_type*> busy_;  // connections with a call on them, for cancel()
};

/// The client of an io_context one thread runs.
extern template class beast_client<boost::asio::io_context::executor_type>;
/// The client of an io_context several threads run (fiber's carriers).
extern template class beast_client<boost::asio::strand<boost::asio::io_context::executor_type>>;

}  // namespace execbench::models
