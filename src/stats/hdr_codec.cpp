#include "execbench/stats/hdr_codec.hpp"

#include "execbench/core/base64.hpp"

#include <zlib.h>

#include <bit>
#include <cstdio>
#include <cstring>

namespace execbench::stats {

namespace {

// HdrHistogram's cookies carry the word size in bits 4..7; V2 writes 1 there (variable-length counts).
constexpr std::uint32_t v2_encoding_cookie = 0x1c849303 | 0x10;
constexpr std::uint32_t v2_compressed_cookie = 0x1c849304 | 0x10;
constexpr std::size_t header_size = 40;
constexpr std::size_t compressed_header_size = 8;
// Bounds what a hostile deflate stream can make the decoder inflate: well above the V2 encoding of any histogram
// execbench records (23,552 buckets at most 9 bytes each).
constexpr std::size_t max_decoded_size = std::size_t{64} << 20;

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> shift));
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v)
{
    for (int shift = 56; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> shift));
}

std::uint64_t get_be(std::span<const std::uint8_t> bytes, std::size_t at, std::size_t width)
{
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i)
        v = v << 8 | bytes[at + i];
    return v;
}

/// LEB128 in at most 9 bytes, the ninth carrying a full 8 bits (HdrHistogram's "LEB128-64b9B").
void put_zigzag(std::vector<std::uint8_t>& out, std::int64_t signed_value)
{
    auto v = (static_cast<std::uint64_t>(signed_value) << 1) ^ static_cast<std::uint64_t>(signed_value >> 63);
    for (int i = 0; i < 8; ++i) {
        if (v >> 7 == 0) {
            out.push_back(static_cast<std::uint8_t>(v));
            return;
        }
        out.push_back(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
}

/// Reads one ZigZag LEB128 number at `at`, advancing it; false when the bytes end inside the number.
bool get_zigzag(std::span<const std::uint8_t> bytes, std::size_t& at, std::int64_t& out)
{
    std::uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
        if (at >= bytes.size())
            return false;
        std::uint64_t b = bytes[at++];
        if (i == 8) {
            v |= b << 56;
            break;
        }
        v |= (b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0)
            break;
    }
    out = static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
    return true;
}

}  // namespace

std::vector<std::uint8_t> encode_v2(const histogram& h)
{
    const auto& counts = h.counts();
    // As HdrHistogram: counts up to the last non-empty bucket; an empty histogram still writes its first bucket.
    std::size_t relevant = 1;
    for (std::size_t i = counts.size(); i > 0; --i)
        if (counts[i - 1] != 0) {
            relevant = i;
            break;
        }
    std::vector<std::uint8_t> payload;
    for (std::size_t i = 0; i < relevant;) {
        if (counts[i] != 0) {
            put_zigzag(payload, static_cast<std::int64_t>(counts[i++]));
            continue;
        }
        std::int64_t zeros = 0;
        while (i < relevant && counts[i] == 0) {
            ++zeros;
            ++i;
        }
        put_zigzag(payload, -zeros);
    }
    std::vector<std::uint8_t> out;
    out.reserve(header_size + payload.size());
    put_u32(out, v2_encoding_cookie);
    put_u32(out, static_cast<std::uint32_t>(payload.size()));
    put_u32(out, 0);  // normalizing index offset: execbench never shifts a histogram
    put_u32(out, static_cast<std::uint32_t>(h.significant_digits()));
    put_u64(out, static_cast<std::uint64_t>(h.lowest()));
    put_u64(out, static_cast<std::uint64_t>(h.highest()));
    put_u64(out, std::bit_cast<std::uint64_t>(1.0));  // integer-to-double conversion ratio of an integer histogram
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

result<histogram> decode_v2(std::span<const std::uint8_t> bytes)
{
    if (bytes.size() < header_size)
        return fail("HdrHistogram V2 encoding: " + std::to_string(bytes.size()) + " bytes, shorter than its " +
                    std::to_string(header_size) + "-byte header");
    auto cookie = static_cast<std::uint32_t>(get_be(bytes, 0, 4));
    if (cookie != v2_encoding_cookie)
        return fail("HdrHistogram V2 encoding: cookie 0x" + [&] {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%08x", cookie);
            return std::string(buf);
        }() + " is not the V2 cookie 0x1c849313");
    auto payload_length = get_be(bytes, 4, 4);
    auto normalizing_offset = static_cast<std::int32_t>(get_be(bytes, 8, 4));
    auto digits = static_cast<std::int32_t>(get_be(bytes, 12, 4));
    auto lowest = static_cast<std::int64_t>(get_be(bytes, 16, 8));
    auto highest = static_cast<std::int64_t>(get_be(bytes, 24, 8));
    auto ratio = std::bit_cast<double>(get_be(bytes, 32, 8));
    if (payload_length != bytes.size() - header_size)
        return fail("HdrHistogram V2 encoding: the header announces " + std::to_string(payload_length) +
                    " payload bytes, " + std::to_string(bytes.size() - header_size) + " follow");
    if (normalizing_offset != 0)
        return fail("HdrHistogram V2 encoding: a shifted histogram (normalizing index offset " +
                    std::to_string(normalizing_offset) + ") is not supported");
    if (ratio != 1.0)
        return fail("HdrHistogram V2 encoding: a DoubleHistogram (value ratio not 1) is not supported");
    // The configuration bounds the counts, so a hostile run length fails instead of allocating.
    auto empty = histogram::from_counts(lowest, highest, digits, {});
    if (!empty)
        return fail("HdrHistogram V2 encoding: " + empty.err().message);
    const std::size_t bucket_limit = empty->counts().size();
    std::vector<std::uint64_t> counts;
    auto payload = bytes.subspan(header_size);
    std::size_t at = 0;
    while (at < payload.size()) {
        std::int64_t v = 0;
        if (!get_zigzag(payload, at, v))
            return fail("HdrHistogram V2 encoding: the payload ends inside a number");
        std::uint64_t buckets = v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : 1;
        if (buckets > bucket_limit - counts.size())
            return fail("HdrHistogram V2 encoding: more buckets than the " + std::to_string(bucket_limit) +
                        " its configuration has");
        if (v < 0)
            counts.resize(counts.size() + buckets, 0);
        else
            counts.push_back(static_cast<std::uint64_t>(v));
    }
    return histogram::from_counts(lowest, highest, digits, counts);
}

result<std::vector<std::uint8_t>> encode_compressed(const histogram& h)
{
    auto plain = encode_v2(h);
    uLongf length = compressBound(static_cast<uLong>(plain.size()));
    std::vector<std::uint8_t> out(compressed_header_size + length);
    if (compress(out.data() + compressed_header_size, &length, plain.data(), static_cast<uLong>(plain.size())) != Z_OK)
        return fail("HdrHistogram compressed encoding: zlib could not deflate the histogram");
    out.resize(compressed_header_size + length);
    std::vector<std::uint8_t> header;
    put_u32(header, v2_compressed_cookie);
    put_u32(header, static_cast<std::uint32_t>(length));
    std::memcpy(out.data(), header.data(), compressed_header_size);
    return out;
}

result<histogram> decode_compressed(std::span<const std::uint8_t> bytes)
{
    if (bytes.size() < compressed_header_size)
        return fail("HdrHistogram compressed encoding: " + std::to_string(bytes.size()) +
                    " bytes, shorter than its 8-byte header");
    if (get_be(bytes, 0, 4) != v2_compressed_cookie)
        return fail("HdrHistogram compressed encoding: not the V2 compressed cookie 0x1c849314 (only V2 is read)");
    auto length = get_be(bytes, 4, 4);
    if (length != bytes.size() - compressed_header_size)
        return fail("HdrHistogram compressed encoding: the header announces " + std::to_string(length) +
                    " compressed bytes, " + std::to_string(bytes.size() - compressed_header_size) + " follow");
    z_stream z{};
    if (inflateInit(&z) != Z_OK)
        return fail("HdrHistogram compressed encoding: zlib could not start inflating");
    z.next_in = const_cast<Bytef*>(bytes.data() + compressed_header_size);
    z.avail_in = static_cast<uInt>(length);
    std::vector<std::uint8_t> plain;
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (plain.size() >= max_decoded_size) {
            rc = Z_DATA_ERROR;
            break;
        }
        std::size_t had = plain.size();
        plain.resize(had + 4096);
        z.next_out = plain.data() + had;
        z.avail_out = 4096;
        rc = inflate(&z, Z_NO_FLUSH);
        plain.resize(plain.size() - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
            break;  // the input ended before the stream did
        if (rc == Z_BUF_ERROR)
            rc = Z_OK;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        return fail("HdrHistogram compressed encoding: the deflated data is corrupt or truncated");
    return decode_v2(plain);
}

result<std::string> encode_log_payload(const histogram& h)
{
    auto bytes = encode_compressed(h);
    if (!bytes)
        return bytes.err();
    return encode_base64(*bytes);
}

result<histogram> decode_log_payload(std::string_view base64)
{
    auto bytes = decode_base64(base64);
    if (!bytes)
        return fail("interval log histogram: " + bytes.err().message);
    return decode_compressed(*bytes);
}

}  // namespace execbench::stats
