#pragma once

#include "execbench/load/engine/exchange.hpp"
#include "execbench/load/engine/measurement.hpp"
#include "execbench/load/engine/request.hpp"

#include "recorder.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace execbench::load::detail {

class group;

/// One keep-alive connection: connect, write the prepared request, read and parse the response incrementally
/// (response_reader), classify failures (exchange.hpp), reopen after them. Owned by its group for the whole trial;
/// handlers capture `this`. The group decides what the connection does next (on_done, on_thought); the connection only
/// does it.
class connection {
public:
    connection(boost::asio::io_context& ioc, group& g, std::uint32_t slot);

    /// No request in flight and no pause pending.
    [[nodiscard]] bool idle() const noexcept { return phase_ == phase::idle; }
    /// A socket is open (connecting or connected).
    [[nodiscard]] bool open() const noexcept { return socket_.is_open(); }
    /// This connection's index among its group's connections on this thread.
    [[nodiscard]] std::uint32_t slot() const noexcept { return slot_; }

    /// Connects before the trial starts; counts `pending` up now and down when the attempt ends.
    void preconnect(const boost::asio::ip::tcp::endpoint& ep, std::size_t& pending);
    /// Sends `r` (connecting first when needed); its latency runs from `intended`.
    void issue(const prepared_request& r, time_point intended);
    /// Pauses for `d` (the group's pause queue wakes it), then asks the group what next.
    void think(duration d);
    /// The pause that think() started as `serial` is over: asks the group what next, unless the pause was ended
    /// early (a later pause makes `serial` stale).
    void thought(std::uint64_t serial, time_point now);
    /// Closes the socket when the connect, write or read that set deadline `serial` (group::watch) is still going on
    /// and past its deadline; a later deadline of this connection makes `serial` stale.
    void check_deadline(time_point now, std::uint64_t serial);
    /// Drops whatever is in flight without counting it.
    void abort();
    /// Ends a pause early; a request in flight completes.
    void abort_thinking_only();
    /// Closes the socket; the next request connects again.
    void close() noexcept;

private:
    enum class phase { idle, waiting, connecting, writing, reading, thinking };

    void start();
    /// Opens the socket for `ep` (bound to a spread loopback source when there is one) and counts it open.
    void open_for(const boost::asio::ip::tcp::endpoint& ep);
    /// Sets the deadline of the operation starting now and has the group watch it.
    void set_deadline(duration timeout, bool connecting);
    void do_connect();
    void on_connect(const boost::system::error_code& ec);
    void do_write();
    void on_write(const boost::system::error_code& ec, std::size_t n);
    void do_read();
    void on_read(const boost::system::error_code& ec, std::size_t n);
    void on_response();
    void on_failure(error_class c);
    void land();
    /// The request this connection carried ended (answered, failed or dropped): one fewer in flight.
    void settle() noexcept;

    group& group_;
    std::uint32_t slot_;
    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer timer_;
    response_reader reader_;
    phase phase_ = phase::idle;
    const prepared_request* request_ = nullptr;
    time_point intended_{};
    time_point sent_{};
    time_point deadline_{};
    time_point retry_after_{};
    bool timed_out_ = false;
    bool aborting_ = false;
    bool sent_once_ = false;
    bool counted_open_ = false;         // counted in the group's open connections
    bool in_flight_ = false;            // counted in the recorder's requests in flight
    std::uint32_t sent_on_socket_ = 0;  // requests written since this socket connected
    std::uint64_t deadline_serial_ = 0;
    std::uint64_t pause_serial_ = 0;
};

}  // namespace execbench::load::detail
