#include "connection.hpp"

#include "group.hpp"

#include "execbench/load/engine/target.hpp"

#include <boost/asio/write.hpp>

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
    : group_(g), slot_(slot), socket_(ioc), timer_(ioc)
{
}

void connection::preconnect(const tcp::endpoint& ep, std::size_t& pending)
{
    ++pending;
    phase_ = phase::connecting;
    open_for(ep);
    socket_.async_connect(ep, [this, &pending](const boost::system::error_code& ec) {
        phase_ = phase::idle;
        --pending;
        boost::system::error_code ignored;
        if (ec)
            close();  // the first request connects again and counts a failure then
        else
            socket_.set_option(tcp::no_delay(true), ignored);
    });
}

void connection::issue(const prepared_request& r, time_point intended)
{
    request_ = &r;
    intended_ = intended;
    timed_out_ = false;
    aborting_ = false;
    if (!in_flight_) {
        in_flight_ = true;
        group_.record().request_began();
    }
    if (clock::now() < retry_after_) {
        // A failed connect is retried after a short pause so a dead server does not spin this thread.
        phase_ = phase::waiting;
        timer_.expires_at(retry_after_);
        timer_.async_wait([this](const boost::system::error_code& ec) {
            if (ec || aborting_)
                return land();
            start();
        });
        return;
    }
    start();
}

void connection::start()
{
    if (socket_.is_open())
        do_write();
    else
        do_connect();
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
    group_.watch(*this, deadline_, ++deadline_serial_, connecting);
}

void connection::do_connect()
{
    phase_ = phase::connecting;
    set_deadline(group_.trial().connect_timeout, true);
    open_for(group_.trial().endpoints.front());
    socket_.async_connect(group_.trial().endpoints.front(),
                          [this](const boost::system::error_code& ec) { on_connect(ec); });
}

void connection::on_connect(const boost::system::error_code& ec)
{
    if (aborting_)
        return land();
    if (ec) {
        retry_after_ = clock::now() + connect_retry_backoff;
        return on_failure(connect_failure(ec, timed_out_));
    }
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    do_write();
}

void connection::do_write()
{
    phase_ = phase::writing;
    sent_ = clock::now();
    set_deadline(group_.trial().timeout, false);
    if (!sent_once_) {
        sent_once_ = true;
        group_.count_first_send();
    }
    // Churn: the last request a connection carries asks the server to close it, so the server, not this
    // generator, holds the TIME_WAIT, and the next request connects afresh.
    const auto& bytes =
        last_on_socket(++sent_on_socket_, group_.requests_per_connection()) ? request_->closing_bytes : request_->bytes;
    asio::async_write(socket_, asio::buffer(bytes),
                      [this](const boost::system::error_code& ec, std::size_t n) { on_write(ec, n); });
}

void connection::on_write(const boost::system::error_code& ec, std::size_t n)
{
    if (aborting_)
        return land();
    group_.record().sent(n);
    if (ec)
        return on_failure(timed_out_ ? error_class::request_timeout : error_class::reset);
    phase_ = phase::reading;
    reader_.begin();
    do_read();
}

void connection::do_read()
{
    socket_.async_read_some(reader_.space(),
                            [this](const boost::system::error_code& ec, std::size_t n) { on_read(ec, n); });
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n)
{
    if (aborting_)
        return land();
    auto state = read_state::cut_off;  // a reset, or our deadline's close
    if (!ec)
        state = reader_.received(n);
    else if (ec == asio::error::eof && !timed_out_)
        state = reader_.closed();
    switch (state) {
    case read_state::need_more: return do_read();
    case read_state::done: return on_response();
    case read_state::bad_response: return on_failure(error_class::bad_response);
    case read_state::cut_off: return on_failure(timed_out_ ? error_class::request_timeout : error_class::reset);
    }
}

void connection::on_response()
{
    auto now = clock::now();
    const auto& response = reader_.response();
    int status = response.status();
    group_.record().body(response.body_bytes());
    if (!response.keep_alive() || last_on_socket(sent_on_socket_, group_.requests_per_connection()))
        close();
    phase_ = phase::idle;
    settle();
    if (status >= 500)
        group_.record().error(error_class::http_5xx, now);
    else if (status >= 400)
        group_.record().error(error_class::http_4xx, now);
    else
        group_.record().ok(now, intended_, sent_);
    group_.on_done(*this, now);
}

void connection::on_failure(error_class c)
{
    close();
    phase_ = phase::idle;
    settle();
    auto now = clock::now();
    group_.record().error(c, now);
    group_.on_done(*this, now);
}

void connection::land()
{
    close();
    phase_ = phase::idle;
    settle();
}

void connection::settle() noexcept
{
    if (in_flight_) {
        in_flight_ = false;
        group_.record().request_ended();
    }
}

void connection::check_deadline(time_point now, std::uint64_t serial)
{
    bool io = phase_ == phase::connecting || phase_ == phase::writing || phase_ == phase::reading;
    if (serial == deadline_serial_ && io && !timed_out_ && now >= deadline_) {
        timed_out_ = true;
        close();  // the pending operation completes with operation_aborted
    }
}

void connection::abort()
{
    aborting_ = true;
    switch (phase_) {
    case phase::idle: close(); break;
    case phase::waiting: timer_.cancel(); break;
    case phase::thinking: land(); break;  // the group's pause queue forgets it: the phase no longer matches
    default: close();
    }
}

void connection::abort_thinking_only()
{
    if (phase_ != phase::thinking && phase_ != phase::waiting)
        return;
    aborting_ = true;
    if (phase_ == phase::thinking)
        land();  // the group's pause queue forgets it: the phase no longer matches
    else
        timer_.cancel();
}

void connection::close() noexcept
{
    boost::system::error_code ignored;
    if (socket_.is_open())
        socket_.close(ignored);
    if (counted_open_) {
        counted_open_ = false;
        group_.closed();
    }
    sent_on_socket_ = 0;
}

}  // namespace execbench::load::detail
