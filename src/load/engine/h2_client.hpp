#pragma once

#include "execbench/load/engine/prepared_request.hpp"

#include <boost/asio/buffer.hpp>

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace execbench::load::detail {

/// How one HTTP/2 stream ended. A stream above a GOAWAY's last stream id is not reported: the server never began
/// it (RFC 9113 §6.8), so the connection sends it again on its next socket.
struct h2_stream_end {
    std::uint32_t slot = 0;  ///< the connection's slot the request was submitted for
    bool reset = false;      ///< the server reset the stream (RST_STREAM), or it closed without a response
    int status = 0;
    std::uint64_t body_bytes = 0;
};

/// One connection's HTTP/2 client session (libnghttp2's session API), with no I/O of its own: the connection reads
/// into space() and hands the bytes over (received), and writes what output() gathers, one write at a time, as the
/// removed nghttp2 Asio layer did. The session is begun on each new socket and ended with it. A stream carries the
/// connection's slot as its user data, so its end is reported by slot (ended()), after received() returns: nothing
/// of the connection runs inside nghttp2's callbacks. Nothing here allocates per request but nghttp2 itself.
class h2_client {
public:
    /// A client for up to `streams` requests at once, slots 0..streams-1.
    explicit h2_client(std::uint32_t streams);
    ~h2_client();
    h2_client(const h2_client&) = delete;
    h2_client& operator=(const h2_client&) = delete;

    /// Starts a session on a new connection: the preface and SETTINGS wait in output(). False when nghttp2 cannot
    /// make one (out of memory).
    bool begin();
    /// Forgets the session without a word to the server (the socket is closing); nothing is reported.
    void end() noexcept;
    /// A session is begun and not ended.
    [[nodiscard]] bool active() const noexcept { return session_ != nullptr; }
    /// New requests may go on this session: it is begun and no GOAWAY was sent or received.
    [[nodiscard]] bool accepting() const noexcept;
    /// Queues request `r` as a stream for `slot` (no request in it); it goes with the next output(). False when the
    /// session refuses it.
    bool submit(std::uint32_t slot, const prepared_request& r);
    /// Where the next read writes.
    [[nodiscard]] boost::asio::mutable_buffer space() noexcept;
    /// `n` bytes arrived at space(): false when they break the protocol (the session is then over). The streams that
    /// ended meanwhile are in ended().
    bool received(std::size_t n);
    /// The streams that ended since the last take_ended(), oldest first.
    [[nodiscard]] const std::vector<h2_stream_end>& ended() const noexcept { return ended_; }
    /// Forgets ended().
    void take_ended() noexcept { ended_.clear(); }
    /// Gathers what the session has to send into one buffer (up to about 64 KiB; the rest comes with the next call)
    /// and returns it, empty when nothing waits; valid until the next call. False in `ok` when nghttp2 failed.
    boost::asio::const_buffer output(bool& ok);
    /// The session is over by the protocol: a GOAWAY came or went and nothing more is to be read or written.
    [[nodiscard]] bool finished() const noexcept;
    /// The session still reads: no GOAWAY, or streams still open after one.
    [[nodiscard]] bool wants_read() const noexcept;
    /// The server sent GOAWAY.
    [[nodiscard]] bool goaway_received() const noexcept { return goaway_; }
    /// That GOAWAY said NO_ERROR: a graceful close (a server's request limit or shutdown), not a failure.
    [[nodiscard]] bool goaway_graceful() const noexcept { return goaway_ && goaway_error_ == 0; }

private:
    struct stream_state {
        const std::string* body = nullptr;  // the request's body, sent from `uploaded` on
        std::size_t uploaded = 0;
        int status = 0;
        std::uint64_t body_bytes = 0;
    };
    struct callbacks;
    friend struct callbacks;

    nghttp2_session* session_ = nullptr;
    std::vector<stream_state> streams_;  // by slot
    std::vector<h2_stream_end> ended_;   // reserved for every slot: a read's ends never allocate
    std::unique_ptr<char[]> in_;         // the read buffer, made with the first session
    std::string out_;                    // the bytes of one write, kept until the next output()
    std::vector<nghttp2_nv> nv_;         // the header list of a submit, reused (nghttp2 copies it)
    bool goaway_ = false;
    std::uint32_t goaway_error_ = 0;
    std::int32_t goaway_last_stream_ = 0;
};

}  // namespace execbench::load::detail
