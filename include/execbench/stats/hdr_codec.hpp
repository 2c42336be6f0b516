#pragma once

#include "execbench/core/result.hpp"
#include "execbench/stats/histogram.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::stats {

/// HdrHistogram's V2 encoding of a histogram (cookie 0x1c849313: a 40-byte big-endian header, then the bucket counts
/// as ZigZag LEB128 numbers, a negative number standing for a run of empty buckets), byte for byte what
/// HdrHistogram's `encodeIntoByteBuffer` writes. Compact: a second of latencies takes tens to hundreds of bytes.
std::vector<std::uint8_t> encode_v2(const histogram& h);
/// Reads a V2 encoding back (see histogram::from_counts for what becomes of min, max and mean). The error says what
/// is malformed; no input crashes or reads past its end.
result<histogram> decode_v2(std::span<const std::uint8_t> bytes);

/// The V2 encoding deflated with zlib behind HdrHistogram's compressed cookie (0x1c849314) and length, as
/// `encodeIntoCompressedByteBuffer` writes it.
result<std::vector<std::uint8_t>> encode_compressed(const histogram& h);
/// Reads what `encode_compressed` (or HdrHistogram) wrote.
result<histogram> decode_compressed(std::span<const std::uint8_t> bytes);

/// The compressed encoding in base64: the histogram field of an interval log line (the "HISTF..." text).
result<std::string> encode_log_payload(const histogram& h);
/// Reads an interval log line's histogram field.
result<histogram> decode_log_payload(std::string_view base64);

}  // namespace execbench::stats
