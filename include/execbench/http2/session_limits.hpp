#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace execbench::http2 {

/// The HTTP/2 limits every model's connections run with, in one place (docs/http2.md says why each is what it is).
/// Those nghttp2 1.52 enforces itself are handed to it as settings and options; the rest are counted by
/// `server_session`, which answers a client past one with GOAWAY and closes.
struct limits {
    /// SETTINGS_MAX_CONCURRENT_STREAMS, what `--h2-max-streams` sets; streams opened past it are refused.
    std::uint32_t max_concurrent_streams = 100;
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much of a request body a stream may send before the server reads it.
    std::uint32_t initial_window = 64 * 1024;
    /// SETTINGS_MAX_HEADER_LIST_SIZE, decoded (name + value + 32 per field, RFC 9113 section 6.5.2); past it the
    /// connection is closed with ENHANCE_YOUR_CALM, so an HPACK bomb decodes at most this much.
    std::uint32_t max_header_list = 16 * 1024;
    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK dynamic table a client may make the server keep.
    std::uint32_t header_table_size = 4096;
    /// Bytes of one header block as sent (HEADERS plus its CONTINUATION frames); past it: ENHANCE_YOUR_CALM.
    std::size_t max_header_block = 32 * 1024;
    /// CONTINUATION frames after one HEADERS frame; past it: ENHANCE_YOUR_CALM (the CONTINUATION flood).
    unsigned max_continuations = 16;
    /// Streams the client may cancel (RST_STREAM) per `window`; past it: ENHANCE_YOUR_CALM (rapid reset).
    unsigned max_resets_per_window = 200;
    /// SETTINGS, PING and PRIORITY frames the client may send per `window`; past it: ENHANCE_YOUR_CALM.
    unsigned max_control_frames_per_window = 500;
    /// The window the two counts above are kept over.
    std::chrono::milliseconds window{1000};
    /// SETTINGS and PING acknowledgements nghttp2 may queue for a client that does not read them
    /// (`nghttp2_option_set_max_outbound_ack`); past it nghttp2 fails the session (a flood).
    std::size_t max_outbound_ack = 100;
    /// SETTINGS entries in one SETTINGS frame (`nghttp2_option_set_max_settings`).
    std::size_t max_settings = 32;
    /// Largest request body one stream may send; past it the stream is answered 413.
    std::size_t max_body = 1024 * 1024;
    /// Bytes of frames made ready for one write: output buffered per connection never exceeds it (plus a frame).
    std::size_t max_output = 64 * 1024;
};

/// Why a connection was sent GOAWAY: the label of `execbench_h2_goaways_total` on /metrics.
enum class goaway_reason : std::uint8_t {
    shutdown,        ///< the server is draining (NO_ERROR)
    protocol_error,  ///< nghttp2 found the client broke the protocol (a bad preface, a reused stream id, ...)
    rapid_reset,     ///< too many streams cancelled (ENHANCE_YOUR_CALM)
    control_flood,   ///< too many SETTINGS/PING/PRIORITY frames or unread acknowledgements (ENHANCE_YOUR_CALM)
    header_flood,    ///< a header block too large or too many CONTINUATION frames, an HPACK bomb (ENHANCE_YOUR_CALM)
    internal,        ///< the server failed (out of memory)
};
/// How many reasons there are.
inline constexpr std::size_t goaway_reason_count = static_cast<std::size_t>(goaway_reason::internal) + 1;

/// The reason's label, e.g. "rapid_reset".
std::string_view to_string(goaway_reason r) noexcept;

/// The client connection preface (RFC 9113 section 3.4) a cleartext connection starts with to speak h2c.
inline constexpr std::string_view connection_preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a cleartext connection's first bytes say about its protocol.
enum class preface_match : std::uint8_t {
    http1,      ///< they are not the connection preface: HTTP/1.1
    http2,      ///< they begin like the connection preface: h2c with prior knowledge
    undecided,  ///< too few to tell ("P", "PR" or "PRI"): read more before parsing
};

/// Tells h2c from HTTP/1.1 by a connection's first bytes `first`: their first four, "PRI " (no HTTP/1.1 method is
/// PRI). A connection that starts so and departs from the preface later is HTTP/2's to refuse: nghttp2 answers it
/// with GOAWAY PROTOCOL_ERROR, as a client that meant h2c should hear.
[[nodiscard]] constexpr preface_match match_preface(std::string_view first) noexcept
{
    constexpr std::size_t telling = 4;
    const auto n = first.size() < telling ? first.size() : telling;
    if (first.substr(0, n) != connection_preface.substr(0, n))
        return preface_match::http1;
    return n == telling ? preface_match::http2 : preface_match::undecided;
}

/// The ALPN protocol id of HTTP/2 over TLS.
inline constexpr std::string_view alpn_id = "h2";

}  // namespace execbench::http2
