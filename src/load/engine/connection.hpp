#pragma once

#include "execbench/load/engine/exchange.hpp"
#include "execbench/load/record/measurement.hpp"
#include "execbench/load/engine/prepared_request.hpp"
#include "execbench/tls/client_stream.hpp"

#include "h2_client.hpp"
#include "recorder.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load::detail {

class group;

/// One keep-alive connection: connect, write the prepared requests, read and parse the responses incrementally
/// (response_reader), classify failures (exchange.hpp), reopen after them. It carries up to the group's pipeline
/// depth of requests at once, answered in the order they were written (HTTP/1.1 pipelining); depth 1 is one request
/// at a time. Owned by its group for the whole trial; handlers capture `this`. The group decides what the
/// connection does next (on_done, on_thought); the connection only does it.
///
/// Over TLS (an https:// target) the connect ends with a handshake, and reads and writes go through OpenSSL on the
/// same non-blocking socket: OpenSSL reads and writes the descriptor itself, and what it would wait for becomes an
/// Asio wait (async_wait) on the socket, as wrk drives OpenSSL from its event loop. The cleartext path is as it was
/// but for one branch per write and per read on a flag fixed for the trial.
///
/// Over HTTP/2 (trial_plan::http2) the same socket and TLS I/O carry an h2_client: the requests are streams, up to
/// the group's stream count at once, each in its own slot of the ring and answered in any order. A session begins
/// with a socket's first write; from then on the connection reads all the time (the server's SETTINGS, PINGs and
/// GOAWAY come unasked) and keeps one write in flight, of everything the session has to send.
class connection {
public:
    connection(boost::asio::io_context& ioc, group& g, std::uint32_t slot);

    /// No request queued or in flight and no pause pending.
    [[nodiscard]] bool idle() const noexcept { return count_ == 0 && phase_ != phase::thinking; }
    /// How many more requests the pipeline takes now.
    [[nodiscard]] std::uint32_t room() const noexcept
    {
        return phase_ == phase::thinking ? 0 : static_cast<std::uint32_t>(ring_.size() - count_);
    }
    /// Requests go as HTTP/2 streams, each on its own and answered in any order.
    [[nodiscard]] bool multiplexed() const noexcept { return h2_ != nullptr; }
    /// A socket is open (connecting or connected).
    [[nodiscard]] bool open() const noexcept { return socket_.is_open(); }
    /// This connection's index among its group's connections on this thread.
    [[nodiscard]] std::uint32_t slot() const noexcept { return slot_; }

    /// Connects before the trial starts; counts `pending` up now and down when the attempt ends.
    void preconnect(const boost::asio::ip::tcp::endpoint& ep, std::size_t& pending);
    /// Queues `r` behind the requests in flight (room() must be above 0); its latency runs from `intended`.
    /// Nothing is written before send().
    void add(const prepared_request& r, time_point intended);
    /// Writes every request add() queued in one write, connecting first when needed.
    void send();
    /// One request: add() then send().
    void issue(const prepared_request& r, time_point intended)
    {
        add(r, intended);
        send();
    }
    /// Pauses for `d` (the group's pause queue wakes it), then asks the group what next.
    void think(duration d);
    /// The pause that think() started as `serial` is over: asks the group what next, unless the pause was ended
    /// early (a later pause makes `serial` stale).
    void thought(std::uint64_t serial, time_point now);
    /// Fails what is in flight and closes the socket when the connect, or the requests in flight, that set deadline
    /// `serial` (group::watch) are still going on and past it; a later deadline of this connection makes `serial`
    /// stale.
    void check_deadline(time_point now, std::uint64_t serial);
    /// Drops whatever is queued or in flight without counting it.
    void abort();
    /// Ends a pause early; requests in flight complete.
    void abort_thinking_only();
    /// Gives up the requests queued or in flight, each counted as `error_class::interrupted` (a graceful stop
    /// passed); nothing when there are none.
    void interrupt();
    /// Closes the socket; the next request connects again. Requests in flight must have been settled.
    void close() noexcept;

private:
    enum class phase { idle, waiting, connecting, connected, thinking };

    /// A request taken by add(): in the ring from add() until it is answered, fails or is dropped.
    struct exchange {
        const prepared_request* request = nullptr;
        time_point intended{};
        time_point sent{};
    };

    exchange& at(std::size_t i) noexcept { return ring_[(head_ + i) % ring_.size()]; }
    void start();
    /// Opens the socket for `ep` (bound to a spread loopback source when there is one) and counts it open.
    void open_for(const boost::asio::ip::tcp::endpoint& ep);
    /// Sets the deadline of the operation starting now and has the group watch it.
    void set_deadline(duration timeout, bool connecting);
    void do_connect();
    void on_connect(const boost::system::error_code& ec);
    /// The connect is done (and the TLS handshake, if any): counts it and writes what waits, or ends a pre-connect.
    void established();
    /// Over TLS: the handshake on the connected socket, until it is done or fails.
    void begin_tls();
    void continue_handshake();
    void handshake_failed();
    /// Waits until the socket is ready for what step `s` wants, then calls `next(ec)` unless the socket was closed.
    template <class Next>
    void await(tls::step s, Next next);
    /// Over TLS: writes `bytes` (the write's completion is posted, as an Asio write's is).
    void tls_write(boost::asio::const_buffer bytes);
    /// Over TLS: reads what is there, or waits for it; `woken`: called from a wait's handler (else the read's end is
    /// posted, so a read that completes at once does not run the exchange's next step inside its caller).
    void tls_read(bool woken);
    /// Ends a pre-connect attempt: counts it done for the worker that waits on them.
    void settle_preconnect() noexcept;
    void do_write();
    void on_write(const boost::system::error_code& ec, std::size_t n);
    void do_read();
    void on_read(const boost::system::error_code& ec, std::size_t n);
    /// The oldest request's response is whole; false when the connection may read no further.
    bool on_response();
    /// Every request queued or in flight failed as `c` (one error each); the socket closes.
    void on_failure(error_class c);
    /// Forgets the oldest request: one fewer in flight.
    void pop() noexcept;
    /// Forgets every request queued or in flight; returns how many there were.
    std::size_t drop_all() noexcept;
    /// Where the next read writes: the HTTP/1.1 reader's buffer or the HTTP/2 session's.
    boost::asio::mutable_buffer read_space() noexcept;

    // HTTP/2 (h2_ set).
    /// Submits the queued requests (when the session takes them) and writes what the session has to send.
    void h2_write();
    void h2_on_read(const boost::system::error_code& ec, std::size_t n);
    /// Counts the streams that ended and hands each slot back to the group; false when the connection closed.
    bool h2_settle(time_point now);
    /// The session is over after a GOAWAY: the streams in flight the server never began go again on a new socket
    /// after a graceful one, and failed as errors_h2_goaway after another (as bad_response when nghttp2 sent the
    /// GOAWAY, the server having broken the protocol).
    void h2_over();

    group& group_;
    std::uint32_t slot_;
    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer timer_;
    const tls::client_context* tls_context_;  // null: cleartext
    tls::client_stream tls_;
    tls::session_slot session_;  // the newest session this slot received (resumption on)
    response_reader reader_;
    phase phase_ = phase::idle;
    std::vector<exchange> ring_;  // the pipeline, oldest first from head_; its size is the depth. HTTP/2: by slot
    std::unique_ptr<h2_client> h2_;           // null: HTTP/1.1
    std::vector<std::uint32_t> free_;         // HTTP/2: the slots without a request
    std::vector<std::uint32_t> queued_;       // HTTP/2: the slots whose request is not submitted yet, oldest first
    std::vector<bool> in_flight_;             // HTTP/2: by slot, submitted on this socket's session
    std::size_t head_ = 0;
    std::size_t count_ = 0;    // requests in the ring
    std::size_t written_ = 0;  // of them, the oldest ones handed to a write (their answers come next)
    std::string out_;          // the bytes of a write of several requests, kept until it completes
    std::uint64_t epoch_ = 0;  // counts closes: a handler of an older socket or wait has nothing to do
    time_point deadline_{};
    time_point watched_at_{};  // the queued deadline entry of deadline_serial_ (set_deadline)
    time_point retry_after_{};
    time_point connect_began_{};
    std::size_t* preconnecting_ = nullptr;  // the worker's count of pre-connects under way, while this is one
    bool writing_ = false;
    bool reading_ = false;
    bool settling_ = false;  // HTTP/2: h2_settle is handing ended streams to the group; the next write waits for it
    bool sent_once_ = false;
    bool watched_connecting_ = false;  // that entry is in the connect queue
    bool counted_open_ = false;         // counted in the group's open connections
    std::uint32_t sent_on_socket_ = 0;  // requests written since this socket connected
    std::uint64_t deadline_serial_ = 0;
    std::uint64_t pause_serial_ = 0;
};

}  // namespace execbench::load::detail
