#include "connection.hpp"

#include "group.hpp"

#include "execbench/load/engine/target.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <ratio>

#include <netinet/in.h>
#include <sys/socket.h>

namespace execbench::load::detail {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

constexpr auto connect_retry_backoff = std::chrono::milliseconds{10};

/// Binds the open socket `s` to connection `index`'s loopback source address (load::loopback_source) when `to` has
/// one; the port is left to connect(). When that fails, connect() picks the source as it would have.
void bind_source(tcp::socket& s, const tcp::endpoint& to, std::uint32_t index)
{
    auto source = loopback_source(to, index);
    if (!source)
        return;
    // Without IP_BIND_ADDRESS_NO_PORT, bind() would pick a port for the address alone and reserve it against
    // every destination; with it, connect() picks one for the whole four-tuple.
    int one = 1;
    boost::system::error_code ignored;
    if (::setsockopt(s.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) == 0)
        s.bind(tcp::endpoint(*source, 0), ignored);
}

}  // namespace

connection::connection(asio::io_context& ioc, group& g, std::uint32_t slot)
    : group_(g), slot_(slot), socket_(ioc), timer_(ioc), tls_context_(g.trial().tls), ring_(g.pipeline_depth())
{
    if (!g.trial().http2)
        return;
    auto streams = static_cast<std::uint32_t>(ring_.size());
    h2_ = std::make_unique<h2_client>(streams);
    free_.reserve(streams);
    for (auto i = streams; i > 0; --i)
        free_.push_back(i - 1);
    queued_.reserve(streams);
    in_flight_.assign(streams, false);
}

void connection::preconnect(const tcp::endpoint& ep, std::size_t& pending)
{
    ++pending;
    preconnecting_ = &pending;
    phase_ = phase::connecting;
    connect_began_ = clock::now();
    open_for(ep);
    socket_.async_connect(ep, [this, epoch = epoch_](const boost::system::error_code& ec) {
        if (epoch != epoch_)
            return;  // closed meanwhile (the connect limit passed), which settled the attempt
        if (ec)
            return close();  // the first request connects again and counts a failure then
        on_connect(ec);
    });
}

void connection::settle_preconnect() noexcept
{
    if (preconnecting_) {
        --*preconnecting_;
        preconnecting_ = nullptr;
    }
}

void connection::add(const prepared_request& r, time_point intended)
{
    if (h2_) {
        auto s = free_.back();
        free_.pop_back();
        ring_[s] = {&r, intended, {}};
        queued_.push_back(s);
        ++count_;
    } else {
        at(count_++) = {&r, intended, {}};
    }
    group_.record().request_began();
}

void connection::send()
{
    if (count_ == written_)
        return;
    switch (phase_) {
    case phase::connected:
        if (!writing_ && !settling_)
            do_write();
        return;  // otherwise the write under way writes these after it, or the read being settled does
    case phase::connecting:
    case phase::waiting: return;  // the connect, or the wait before it, ends by writing them
    case phase::idle: break;
    case phase::thinking: return;  // a pause takes no requests (room() is 0)
    }
    if (clock::now() < retry_after_) {
        // A failed connect is retried after a short pause so a dead server does not spin this thread.
        phase_ = phase::waiting;
        timer_.expires_at(retry_after_);
        timer_.async_wait([this, epoch = epoch_](const boost::system::error_code& ec) {
            if (ec || epoch != epoch_)
                return;  // abort() dropped the requests
            start();
        });
        return;
    }
    start();
}

void connection::start()
{
    if (socket_.is_open()) {
        phase_ = phase::connected;
        do_write();
    } else {
        do_connect();
    }
}

void connection::think(duration d)
{
    phase_ = phase::thinking;
    group_.pause(*this, clock::now() + d, ++pause_serial_);
}

void connection::thought(std::uint64_t serial, time_point now)
{
    if (serial != pause_serial_ || phase_ != phase::thinking)
        return;
    phase_ = phase::idle;
    group_.on_thought(*this, now);
}

void connection::open_for(const tcp::endpoint& ep)
{
    if (socket_.is_open())
        return;
    boost::system::error_code ec;
    socket_.open(ep.protocol(), ec);
    // On failure async_connect opens the socket itself and reports the same error.
    if (ec)
        return;
    counted_open_ = true;
    group_.opened();
    bind_source(socket_, ep, slot_);
}

void connection::set_deadline(duration timeout, bool connecting)
{
    deadline_ = clock::now() + timeout;
    // Every answer renews the deadline. Queueing each renewal grew the group's queue by an entry an answer, each
    // held for the whole timeout (6 million entries at 600,000 req/s and 10 s) and allocated as it grew. An entry at
    // or after the deadline still catches it (check_deadline compares with deadline_), so a renewal is queued only
    // when it passes the entry already queued, rounded up to 10 ms: half of the engine's 20 ms sweep.
    using step = std::chrono::duration<std::int64_t, std::centi>;
    auto at = time_point(std::chrono::ceil<step>(deadline_.time_since_epoch()));
    if (at == watched_at_ && connecting == watched_connecting_)
        return;
    watched_at_ = at;
    watched_connecting_ = connecting;
    group_.watch(*this, at, ++deadline_serial_, connecting);
}

void connection::do_connect()
{
    phase_ = phase::connecting;
    connect_began_ = clock::now();
    set_deadline(group_.trial().connect_timeout, true);
    open_for(group_.trial().endpoints.front());
    socket_.async_connect(group_.trial().endpoints.front(),
                          [this, epoch = epoch_](const boost::system::error_code& ec) {
                              if (epoch == epoch_)
                                  on_connect(ec);
                          });
}

void connection::on_connect(const boost::system::error_code& ec)
{
    if (ec) {
        retry_after_ = clock::now() + connect_retry_backoff;
        return on_failure(connect_failure(ec, false));
    }
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    if (tls_context_)
        return begin_tls();
    established();
}

void connection::established()
{
    // Offered h2 alone, a server that selected nothing cannot speak HTTP/2 over TLS: a failed handshake for this
    // generator, as a refused protocol is.
    if (h2_ && tls_context_ && tls_.alpn() != "h2")
        return handshake_failed();
    group_.record().connected(clock::now() - connect_began_, tls_.active(), tls_.resumed());
    if (preconnecting_) {
        settle_preconnect();
        phase_ = phase::idle;
        return;
    }
    phase_ = phase::connected;
    do_write();
}

template <class Next>
void connection::await(tls::step s, Next next)
{
    socket_.async_wait(s == tls::step::want_write ? tcp::socket::wait_write : tcp::socket::wait_read,
                       [this, epoch = epoch_, next](const boost::system::error_code& ec) {
                           if (epoch == epoch_)
                               next(ec);
                       });
}

void connection::begin_tls()
{
    const auto& trial = group_.trial();
    if (!tls_.begin(*tls_context_, socket_.native_handle(), trial.tls_host, trial.tls_resume ? &session_ : nullptr,
                    h2_ ? tls::alpn_h2 : std::string_view{}))
        return handshake_failed();
    continue_handshake();
}

void connection::continue_handshake()
{
    switch (auto s = tls_.handshake()) {
    case tls::step::done: return established();
    case tls::step::want_read:
    case tls::step::want_write:
        return await(s, [this](const boost::system::error_code& ec) {
            if (ec)
                return handshake_failed();
            continue_handshake();
        });
    case tls::step::closed:
    case tls::step::failed: return handshake_failed();
    }
}

void connection::handshake_failed()
{
    // As after a failed connect: a server that refuses every handshake must not spin this thread.
    retry_after_ = clock::now() + connect_retry_backoff;
    tls_.reset();
    if (preconnecting_)
        return close();  // the first request connects again and counts a failure then
    on_failure(error_class::tls_handshake);
}

void connection::tls_write(asio::const_buffer bytes)
{
    auto s = tls_.write(bytes.data(), bytes.size());
    if (s == tls::step::want_read || s == tls::step::want_write)
        return await(s, [this, bytes](const boost::system::error_code& ec) {
            if (ec)
                return on_write(ec, 0);
            tls_write(bytes);
        });
    boost::system::error_code ec;
    if (s != tls::step::done)
        ec = asio::error::connection_reset;
    asio::post(socket_.get_executor(), [this, epoch = epoch_, ec, n = s == tls::step::done ? bytes.size() : 0] {
        if (epoch == epoch_)
            on_write(ec, n);
    });
}

void connection::tls_read(bool woken)
{
    auto space = read_space();
    std::size_t n = 0;
    auto s = tls_.read(space.data(), space.size(), n);
    if (s == tls::step::want_read || s == tls::step::want_write)
        return await(s, [this](const boost::system::error_code& ec) {
            if (ec)
                return on_read(ec, 0);
            tls_read(true);
        });
    boost::system::error_code ec;
    if (s == tls::step::closed)
        ec = asio::error::eof;
    else if (s == tls::step::failed)
        ec = asio::error::connection_reset;
    if (woken)
        return on_read(ec, n);
    asio::post(socket_.get_executor(), [this, epoch = epoch_, ec, n] {
        if (epoch == epoch_)
            on_read(ec, n);
    });
}

void connection::do_write()
{
    if (h2_)
        return h2_write();
    auto now = clock::now();
    // The requests in flight before these are answered first; the deadline runs from the oldest write still
    // unanswered, and each answer renews it (on_response).
    if (written_ == 0)
        set_deadline(group_.trial().timeout, false);
    if (!sent_once_) {
        sent_once_ = true;
        group_.count_first_send();
    }
    // Churn: the last request a connection carries asks the server to close it, so the server, not this
    // generator, holds the TIME_WAIT, and the next request connects afresh.
    auto bytes_of = [this](const exchange& e) -> const std::string& {
        return last_on_socket(++sent_on_socket_, group_.requests_per_connection()) ? e.request->closing_bytes
                                                                                   : e.request->bytes;
    };
    asio::const_buffer bytes;
    if (count_ - written_ == 1) {
        auto& e = at(written_);
        e.sent = now;
        bytes = asio::buffer(bytes_of(e));
    } else {
        out_.clear();
        for (auto i = written_; i < count_; ++i) {
            at(i).sent = now;
            out_ += bytes_of(at(i));
        }
        bytes = asio::buffer(out_);
    }
    written_ = count_;
    writing_ = true;
    if (tls_context_)
        return tls_write(bytes);
    asio::async_write(socket_, bytes, [this, epoch = epoch_](const boost::system::error_code& ec, std::size_t n) {
        if (epoch == epoch_)
            on_write(ec, n);
    });
}

void connection::on_write(const boost::system::error_code& ec, std::size_t n)
{
    writing_ = false;
    group_.record().sent(n);
    if (ec)
        return on_failure(error_class::reset);
    if (h2_)
        return h2_->finished() ? h2_over() : h2_write();  // what the session queued meanwhile
    if (!reading_) {
        reading_ = true;
        reader_.begin();
        do_read();
    }
    if (count_ > written_)
        do_write();  // added while this write was under way
}

void connection::do_read()
{
    if (tls_context_)
        return tls_read(false);
    socket_.async_read_some(read_space(),
                            [this, epoch = epoch_](const boost::system::error_code& ec, std::size_t n) {
                                if (epoch == epoch_)
                                    on_read(ec, n);
                            });
}

asio::mutable_buffer connection::read_space() noexcept
{
    return h2_ ? h2_->space() : reader_.space();
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n)
{
    if (h2_)
        return h2_on_read(ec, n);
    auto state = read_state::cut_off;  // a reset
    if (!ec)
        state = reader_.received(n);
    else if (ec == asio::error::eof)
        state = reader_.closed();
    for (;;) {
        switch (state) {
        case read_state::need_more: return do_read();
        case read_state::done: break;
        case read_state::bad_response: return on_failure(error_class::bad_response);
        case read_state::cut_off: return on_failure(error_class::reset);
        }
        if (!on_response())
            return;
        // The next pipelined answer may be in the bytes already read.
        state = reader_.parse();
    }
}

bool connection::on_response()
{
    auto now = clock::now();
    const auto& response = reader_.response();
    int status = response.status();
    auto e = at(0);
    group_.record().body(response.body_bytes());
    pop();
    if (status >= 500)
        group_.record().error(error_class::http_5xx, now);
    else if (status >= 400)
        group_.record().error(error_class::http_4xx, now);
    else
        group_.record().ok(now, e.intended, e.sent);
    bool more = written_ > 0;
    if (!response.keep_alive() || (!more && last_on_socket(sent_on_socket_, group_.requests_per_connection()))) {
        // The server closes after this answer: what else was written or queued on the socket is lost with it.
        if (count_ > 0) {
            on_failure(error_class::reset);
        } else {
            close();
            group_.on_done(*this, now);
        }
        return false;
    }
    if (more) {
        set_deadline(group_.trial().timeout, false);  // progress: the deadline of those still in flight starts again
        reader_.next();
    } else {
        reading_ = false;  // the next write starts the next read
    }
    auto epoch = epoch_;
    group_.on_done(*this, now);
    return more && epoch == epoch_;
}

void connection::on_failure(error_class c)
{
    auto now = clock::now();
    auto lost = drop_all();
    close();
    // Every request that was queued or in flight failed; a connect that failed fails the requests waiting for it.
    for (std::size_t i = 0; i < lost; ++i)
        group_.record().error(c, now);
    group_.on_done(*this, now);
}

void connection::pop() noexcept
{
    head_ = (head_ + 1) % ring_.size();
    --count_;
    if (written_ > 0)
        --written_;
    group_.record().request_ended();
}

void connection::check_deadline(time_point now, std::uint64_t serial)
{
    bool io = phase_ == phase::connecting || (phase_ == phase::connected && written_ > 0);
    if (serial != deadline_serial_ || !io || now < deadline_)
        return;
    if (phase_ == phase::connecting) {
        retry_after_ = now + connect_retry_backoff;
        on_failure(connect_failure({}, true));
    } else {
        on_failure(error_class::request_timeout);
    }
}

std::size_t connection::drop_all() noexcept
{
    auto lost = count_;
    if (!h2_) {
        while (count_ > 0)
            pop();
        return lost;
    }
    for (std::size_t i = 0; i < lost; ++i)
        group_.record().request_ended();
    count_ = written_ = 0;
    queued_.clear();
    free_.clear();
    for (auto i = static_cast<std::uint32_t>(ring_.size()); i > 0; --i)
        free_.push_back(i - 1);
    in_flight_.assign(ring_.size(), false);
    return lost;
}

void connection::abort()
{
    drop_all();
    close();
    phase_ = phase::idle;  // a pause ends too
}

void connection::interrupt()
{
    if (count_ > 0)
        on_failure(error_class::interrupted);
}

void connection::abort_thinking_only()
{
    if (phase_ == phase::thinking || phase_ == phase::waiting)
        abort();
}

void connection::close() noexcept
{
    ++epoch_;  // the handlers of this socket's operations and of a retry wait find nothing to do
    boost::system::error_code ignored;
    if (phase_ == phase::waiting)
        timer_.cancel();
    if (h2_)
        h2_->end();
    if (tls_.active())
        tls_.close();  // close_notify when the connection is sound, then the socket closes
    if (socket_.is_open())
        socket_.close(ignored);
    settle_preconnect();
    if (counted_open_) {
        counted_open_ = false;
        group_.closed();
    }
    writing_ = false;
    reading_ = false;
    sent_on_socket_ = 0;
    if (phase_ != phase::thinking)
        phase_ = phase::idle;
}

void connection::h2_write()
{
    auto now = clock::now();
    if (!h2_->active()) {
        // A new socket: its session's preface and SETTINGS go with its first requests, and the reads begin.
        if (!h2_->begin())
            return on_failure(error_class::reset);
        reading_ = true;
        do_read();
    }
    if (!queued_.empty() && h2_->accepting()) {
        if (written_ == 0)
            set_deadline(group_.trial().timeout, false);
        if (!sent_once_) {
            sent_once_ = true;
            group_.count_first_send();
        }
        for (auto s : queued_) {
            auto& e = ring_[s];
            e.sent = now;
            if (!h2_->submit(s, *e.request))
                return on_failure(error_class::h2_goaway);  // the session takes no more streams
            in_flight_[s] = true;
        }
        written_ += queued_.size();
        queued_.clear();
    }
    if (!writing_) {  // else the write's end writes what the session holds
        bool ok = true;
        auto bytes = h2_->output(ok);
        if (!ok)
            return on_failure(error_class::bad_response);
        // After a GOAWAY nghttp2 may hold a frame it will never send (it still wants to write): with nothing to read
        // either, the session is over.
        if (bytes.size() == 0 && !h2_->wants_read())
            return h2_over();
        if (bytes.size() > 0) {
            writing_ = true;
            if (tls_context_)
                tls_write(bytes);
            else
                asio::async_write(socket_, bytes,
                                  [this, epoch = epoch_](const boost::system::error_code& ec, std::size_t n) {
                                      if (epoch == epoch_)
                                          on_write(ec, n);
                                  });
        }
    }
    // Sending can end a stream too (a request's last DATA after its answer came): settled now, not at the next read,
    // which may never come.
    if (!settling_ && !h2_->ended().empty() && h2_settle(now))
        h2_write();
}

void connection::h2_on_read(const boost::system::error_code& ec, std::size_t n)
{
    if (ec) {
        if (ec == asio::error::eof && h2_->goaway_received())
            return h2_over();
        if (ec == asio::error::eof && count_ == 0)
            return close();  // an idle connection the server let go: the next request connects again
        return on_failure(error_class::reset);
    }
    if (!h2_->received(n))
        return on_failure(error_class::bad_response);
    if (!h2_settle(clock::now()))
        return;
    if (h2_->finished())
        return h2_over();
    // The next requests of the streams just answered, with the session's own answers to the server (SETTINGS and
    // PING acknowledgements, window updates): one write for the whole read.
    h2_write();
    if (h2_->active())
        do_read();
}

bool connection::h2_settle(time_point now)
{
    auto epoch = epoch_;
    settling_ = true;
    // By index: the group may send the next requests from on_done, and a session that writes may end more streams.
    for (std::size_t i = 0; i < h2_->ended().size(); ++i) {
        auto e = h2_->ended()[i];
        auto& x = ring_[e.slot];
        in_flight_[e.slot] = false;
        free_.push_back(e.slot);
        ++sent_on_socket_;  // over HTTP/2: the streams this socket's session answered
        --count_;
        --written_;
        group_.record().request_ended();
        group_.record().body(e.body_bytes);
        if (e.reset)
            group_.record().error(error_class::h2_reset, now);
        else if (e.status >= 500)
            group_.record().error(error_class::http_5xx, now);
        else if (e.status >= 400)
            group_.record().error(error_class::http_4xx, now);
        else
            group_.record().ok(now, x.intended, x.sent);
        if (written_ > 0)
            set_deadline(group_.trial().timeout, false);  // progress: those still in flight get the whole timeout
        group_.on_done(*this, now);
        if (epoch != epoch_) {
            settling_ = false;
            return false;
        }
    }
    settling_ = false;
    h2_->take_ended();
    return true;
}

void connection::h2_over()
{
    auto now = clock::now();
    // A server that lets every session go before answering anything would have the same requests resent forever.
    bool again = h2_->goaway_graceful() && sent_on_socket_ > 0;
    // The session also ends when the server breaks the protocol (an HTTP/1.1 answer to h2c's preface): nghttp2 then
    // sends the GOAWAY itself.
    auto lost_as = h2_->goaway_received() ? error_class::h2_goaway : error_class::bad_response;
    std::size_t lost = 0;
    for (std::uint32_t s = 0; s < in_flight_.size(); ++s) {
        if (!in_flight_[s])
            continue;
        in_flight_[s] = false;
        --written_;
        if (again) {
            queued_.push_back(s);
        } else {
            free_.push_back(s);
            --count_;
            ++lost;
            group_.record().request_ended();
        }
    }
    close();
    for (std::size_t i = 0; i < lost; ++i)
        group_.record().error(lost_as, now);
    auto epoch = epoch_;
    if (lost > 0)
        group_.on_done(*this, now);
    if (epoch == epoch_ && count_ > written_)
        send();  // a new socket for the requests the server never began, and those queued
}

}  // namespace execbench::load::detail
