#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace execbench::endpoints {

/// What a `/stream` request asked for.
struct stream_params {
    std::uint32_t count = 50;           ///< events to send (1..1,000,000)
    std::uint32_t interval_millis = 0;  ///< pause between events (0..60000)
    std::uint32_t event_bytes = 0;      ///< pad each event to this many bytes (0 = no padding, max 65536)
};

/// Appends Server-Sent Event number `index`: "data: event-<index>\n\n". When `event_bytes` exceeds that natural
/// size, the data line is padded with '.' so the whole event (including "data: " and the final "\n\n") is exactly
/// `event_bytes` long.
void append_sse_event(std::size_t index, std::size_t event_bytes, std::string& out);

/// The size `append_sse_event` gives event `index` (for a chunk header written before the event).
std::size_t sse_event_size(std::size_t index, std::size_t event_bytes) noexcept;

}  // namespace execbench::endpoints
