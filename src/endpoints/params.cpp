#include "execbench/endpoints/params.hpp"

#include <charconv>
#include <functional>

namespace execbench::endpoints {

namespace {

constexpr int hex_value(char c) noexcept
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool needs_decoding(std::string_view text) noexcept
{
    return text.find_first_of("%+") != std::string_view::npos;
}

// Decodes `text` (which starts at byte `offset` of the query) onto the end of `out`. `out` has capacity for the
// whole query, so appending never reallocates and earlier views into it stay valid.
result<std::string_view> decode_into(std::string_view text, std::size_t offset, std::string& out)
{
    const auto start = out.size();
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '+') {
            out.push_back(' ');
        } else if (c == '%') {
            const int high = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
            const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
            if (high < 0 || low < 0)
                return fail("query: bad percent-encoding at byte " + std::to_string(offset + i));
            out.push_back(static_cast<char>(high * 16 + low));
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return std::string_view(out).substr(start);
}

// Length of the UTF-8 sequence starting at `s[i]`, or 0 when it is not well-formed (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const auto continuation = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return k < s.size() && byte(k) >= lo && byte(k) <= hi;
    };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80)
        return 1;
    if (b0 >= 0xC2 && b0 <= 0xDF)
        return continuation(i + 1) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
        // E0 needs A0.. to avoid overlongs; ED stops at 9F to exclude the surrogates D800..DFFF.
        const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
        const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
        return continuation(i + 1, lo, hi) && continuation(i + 2) ? 3 : 0;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
        // F0 needs 90.. to avoid overlongs; F4 stops at 8F to stay within U+10FFFF.
        const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
        const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
        return continuation(i + 1, lo, hi) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
    }
    return 0;
}

bool valid_utf8(std::string_view s) noexcept
{
    for (std::size_t i = 0; i < s.size();) {
        const auto n = utf8_sequence_length(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

}  // namespace

result<query_params> query_params::parse(std::string_view query)
{
    query_params params;
    if (needs_decoding(query))
        params.decoded_.reserve(query.size());
    std::size_t pos = 0;
    while (pos <= query.size()) {
        auto end = query.find('&', pos);
        if (end == std::string_view::npos)
            end = query.size();
        const auto segment = query.substr(pos, end - pos);
        const auto segment_offset = pos;
        pos = end + 1;
        // "a=1&&b=2" and a trailing '&' are common in hand-written URLs and carry no parameter.
        if (segment.empty())
            continue;
        const auto eq = segment.find('=');
        auto name = segment.substr(0, eq);
        auto value = eq == std::string_view::npos ? std::string_view{} : segment.substr(eq + 1);
        if (name.empty())
            return fail("query: empty parameter name at byte " + std::to_string(segment_offset));
        if (params.count_ == max_parameters)
            return fail("query: more than " + std::to_string(max_parameters) + " parameters");
        if (needs_decoding(name)) {
            auto decoded = decode_into(name, segment_offset, params.decoded_);
            if (!decoded)
                return decoded.err();
            name = *decoded;
        }
        if (needs_decoding(value)) {
            auto decoded = decode_into(value, segment_offset + eq + 1, params.decoded_);
            if (!decoded)
                return decoded.err();
            value = *decoded;
        }
        params.pairs_[params.count_++] = pair{name, value};
    }
    return params;
}

query_params::query_params(const query_params& other)
    : pairs_(other.pairs_), count_(other.count_), decoded_(other.decoded_)
{
    rebase(other.decoded_.data(), other.decoded_.size());
}

query_params::query_params(query_params&& other) noexcept : pairs_(other.pairs_), count_(other.count_)
{
    const char* old_base = other.decoded_.data();
    const auto old_size = other.decoded_.size();
    decoded_ = std::move(other.decoded_);
    rebase(old_base, old_size);
}

query_params& query_params::operator=(const query_params& other)
{
    if (this != &other) {
        pairs_ = other.pairs_;
        count_ = other.count_;
        decoded_ = other.decoded_;
        rebase(other.decoded_.data(), other.decoded_.size());
    }
    return *this;
}

query_params& query_params::operator=(query_params&& other) noexcept
{
    if (this != &other) {
        const char* old_base = other.decoded_.data();
        const auto old_size = other.decoded_.size();
        pairs_ = other.pairs_;
        count_ = other.count_;
        decoded_ = std::move(other.decoded_);
        rebase(old_base, old_size);
    }
    return *this;
}

void query_params::rebase(const char* old_base, std::size_t old_size) noexcept
{
    if (old_size == 0 || old_base == decoded_.data())
        return;
    // std::less gives a total order over pointers, so testing a view that points into the query is well-defined.
    const std::less<const char*> before;
    const auto move_view = [&](std::string_view& view) {
        if (!view.empty() && !before(view.data(), old_base) && before(view.data(), old_base + old_size))
            view = std::string_view(decoded_.data() + (view.data() - old_base), view.size());
    };
    for (std::size_t i = 0; i < count_; ++i) {
        move_view(pairs_[i].name);
        move_view(pairs_[i].value);
    }
}

std::size_t query_params::occurrences(std::string_view name) const noexcept
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < count_; ++i)
        n += pairs_[i].name == name ? 1 : 0;
    return n;
}

std::optional<std::string_view> query_params::get(std::string_view name) const noexcept
{
    for (std::size_t i = 0; i < count_; ++i) {
        if (pairs_[i].name == name)
            return pairs_[i].value;
    }
    return std::nullopt;
}

result<std::int64_t> int_param(const query_params& params, std::string_view name, std::int64_t fallback,
                               std::int64_t min, std::int64_t max)
{
    const auto occurrences = params.occurrences(name);
    if (occurrences == 0)
        return fallback;
    if (occurrences > 1)
        return fail(std::string(name) + " given more than once");
    const auto text = *params.get(name);
    std::int64_t value = 0;
    // from_chars accepts exactly an optional '-' and digits: no '+', no spaces, and reports overflow.
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < min || value > max)
        return fail(std::string(name) + " must be an integer in " + std::to_string(min) + ".." + std::to_string(max));
    return value;
}

result<std::string_view> string_param(const query_params& params, std::string_view name, std::size_t max_bytes)
{
    const auto occurrences = params.occurrences(name);
    if (occurrences == 0)
        return fail(std::string(name) + " is required");
    if (occurrences > 1)
        return fail(std::string(name) + " given more than once");
    const auto text = *params.get(name);
    if (text.empty())
        return fail(std::string(name) + " must not be empty");
    if (text.size() > max_bytes)
        return fail(std::string(name) + " must be at most " + std::to_string(max_bytes) + " bytes");
    if (!valid_utf8(text))
        return fail(std::string(name) + " must be valid UTF-8");
    return text;
}

}  // namespace execbench::endpoints
