#pragma once

#include "execbench/http/request.hpp"
#include "execbench/http/response.hpp"
#include "execbench/http2/session_limits.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

struct nghttp2_session;  // libnghttp2's: this header does not include nghttp2's

namespace execbench::http2 {

/// Something a session has for its model, in the order it happened (`server_session::next_event`).
struct event {
    enum class kind : std::uint8_t {
        request,    ///< a request is complete (head and body): serve it, then `respond` or `begin_stream`
        cancelled,  ///< the client reset the stream (or the connection failed it): its work is abandoned
        wants_data  ///< the last piece given with `push` was taken into a DATA frame: the stream may produce the next
    };
    kind what = kind::request;
    std::int32_t stream = 0;
    bool body_too_large = false;  ///< a request whose body passed `limits::max_body`: answer 413
};

/// One HTTP/2 server connection as libnghttp2's session API drives it, pure bytes in and bytes out: the model reads
/// from its socket into `receive`, writes what `output` hands it (one write in flight), and serves the requests
/// `next_event` surfaces, answering with `respond` (a whole response) or `begin_stream` and `push` (a body made on
/// demand). Nothing here waits, owns a socket or a thread: a session belongs to its connection's one thread (or
/// strand) at a time.
///
/// Flow control: a pushed piece is framed only as the client's window allows, and `wants_data` asks for the next one
/// only once the previous has been framed, so the model produces an event only when the previous one was taken (the
/// same backpressure as HTTP/1.1's /stream, where the next event waits for the write). Frames are made only while
/// no write is in flight, at most `limits::max_output` at a time, so a client that does not read holds at most that
/// much plus what the streams' answers hold.
///
/// Hostile input (docs/http2.md): the limits nghttp2 enforces are set from `limits`; rapid resets, control-frame
/// floods and oversized or endless header blocks are counted here. Past a limit the session sends GOAWAY with
/// ENHANCE_YOUR_CALM, stops reading and closes once that is written (`finished`).
class server_session {
public:
    /// A server session with `l`'s settings (sent at once: the server's connection preface).
    explicit server_session(const limits& l);
    ~server_session();
    server_session(const server_session&) = delete;
    server_session& operator=(const server_session&) = delete;

    /// Feeds bytes read from the client. False when they broke the protocol or a limit: GOAWAY is then queued (see
    /// `goaway_sent`), nothing more is read, and the connection closes once `output` has nothing left.
    bool receive(std::string_view bytes);

    /// The frames to write next, made now if none are pending: the same bytes until `consumed` says they were
    /// written. Empty when there is nothing to write.
    std::string_view output();
    /// `n` bytes of what `output` returned were written.
    void consumed(std::size_t n) noexcept;

    /// Takes the next event into `e`; for a request, its head and body are moved into `into` (whose capacity the
    /// session gets back). False when none is waiting.
    bool next_event(event& e, http::request_storage& into);

    /// True when `next_event` has something (framing in `output` may have made a `wants_data`).
    [[nodiscard]] bool has_events() const noexcept { return !events_.empty(); }

    /// Answers stream `stream` with `r` (a HEAD answer's body is left out, its length kept). The body is copied: `r`
    /// may be reused at once. Harmless when the stream is gone (the client cancelled it).
    void respond(std::int32_t stream, const http::response& r, bool head_only);
    /// Starts the answer of stream `stream` with `r`'s head; its body follows in pieces given to `push`, each once
    /// `wants_data` asks (the first at once). False when the stream is gone.
    bool begin_stream(std::int32_t stream, const http::response& r);
    /// Gives stream `stream` the next piece of its body (`last`: the body ends with it). Harmless when it is gone.
    void push(std::int32_t stream, std::string_view piece, bool last);
    /// Resets stream `stream` (its work failed); harmless when it is gone.
    void reset(std::int32_t stream);

    /// Starts a graceful close (the server drains): GOAWAY NO_ERROR naming the last stream taken; the streams in
    /// flight are answered, and `finished` turns true once they are and everything is written.
    void shut_down();

    /// The client finished sending (end of stream): nothing more is read, and the session is `finished` once the
    /// streams in flight are answered and written.
    void peer_closed() noexcept { peer_closed_ = true; }

    /// True when the connection has nothing left to read or write: close it.
    [[nodiscard]] bool finished() const noexcept;
    /// True while an answer waits on the client's flow-control window, not on the server: the connection's write
    /// deadline runs (a window of zero held open is closed like a client that does not read).
    [[nodiscard]] bool waits_on_peer() const noexcept;
    /// Streams opened and not yet closed.
    [[nodiscard]] std::size_t open_streams() const noexcept { return streams_.size(); }
    /// Why GOAWAY was queued, once it was; empty before.
    [[nodiscard]] std::optional<goaway_reason> goaway_sent() const noexcept { return goaway_; }
    /// Streams the client opened over the session's life.
    [[nodiscard]] std::uint64_t streams_opened() const noexcept { return streams_opened_; }

private:
    struct stream_state;
    friend struct session_callbacks;

    stream_state* find(std::int32_t stream) noexcept;
    /// Queues GOAWAY for `reason` with its error code and stops reading; later calls keep the first reason.
    void terminate(goaway_reason reason, std::uint32_t error_code);
    /// A callback found `reason`: remembered for `receive`, and nghttp2 is told to stop (its return value).
    int fail(goaway_reason reason) noexcept;
    /// Reads the heads of the frames in `bytes` and counts them against the limits: the limit passed, if any.
    std::optional<goaway_reason> scan(std::string_view bytes);
    /// Counts a frame of `type` whose payload is `length` bytes: the limit it passes, if any.
    std::optional<goaway_reason> count_frame(std::uint8_t type, std::size_t length);
    /// True when a count of `count` frames in the current window passes `max` (the window restarts when it ended).
    bool over_rate(unsigned& count, unsigned max);

    limits limits_;
    nghttp2_session* session_ = nullptr;
    std::unordered_map<std::int32_t, std::unique_ptr<stream_state>> streams_;
    std::deque<event> events_;
    std::string out_;
    std::size_t out_sent_ = 0;
    std::optional<goaway_reason> goaway_;
    std::optional<goaway_reason> failing_;  // a limit a callback found; terminate() once nghttp2 has returned
    std::chrono::steady_clock::time_point window_start_;
    std::size_t preface_left_ = connection_preface.size();  // the scanner's place in the bytes received
    std::array<std::uint8_t, 9> frame_head_{};
    std::size_t head_have_ = 0;
    std::size_t payload_left_ = 0;
    unsigned resets_ = 0;
    unsigned control_frames_ = 0;
    unsigned continuations_ = 0;
    std::size_t header_block_bytes_ = 0;
    std::size_t header_list_bytes_ = 0;
    std::uint64_t streams_opened_ = 0;
    bool shutting_down_ = false;
    bool terminated_ = false;  // GOAWAY for an error is queued: nothing more is read
    bool peer_closed_ = false;  // the client sent end of stream
};

}  // namespace execbench::http2
