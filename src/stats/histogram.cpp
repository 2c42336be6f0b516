#include "execbench/stats/histogram.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace execbench::stats {

namespace {

constexpr std::string_view format_tag = "hist1";

/// The bucket layout HdrHistogram derives from a configuration.
struct layout {
    int unit_magnitude = 0;
    int sub_bucket_half_count_magnitude = 0;
    std::int64_t sub_bucket_count = 0;
    int bucket_count = 0;
    std::size_t counts_length = 0;
};

std::string describe_config(std::int64_t lowest, std::int64_t highest, int digits)
{
    return "(lowest " + std::to_string(lowest) + ", highest " + std::to_string(highest) + ", " +
           std::to_string(digits) + " significant digits)";
}

result<layout> make_layout(std::int64_t lowest, std::int64_t highest, int digits)
{
    if (digits < 1 || digits > 5)
        return fail("histogram significant digits must be 1..5, got " + std::to_string(digits));
    if (lowest < 1)
        return fail("histogram lowest value must be >= 1, got " + std::to_string(lowest));
    // Capping highest at 2^62 - 1 keeps every bucket's upper edge representable in int64.
    constexpr std::int64_t highest_limit = std::numeric_limits<std::int64_t>::max() / 2;
    if (highest > highest_limit)
        return fail("histogram highest value must be <= " + std::to_string(highest_limit) + ", got " +
                    std::to_string(highest));
    // Written as a division: 2 * lowest overflows for a lowest read from a hostile encoding.
    if (lowest > highest / 2)
        return fail("histogram highest value must be >= 2 * lowest, got lowest " + std::to_string(lowest) +
                    " and highest " + std::to_string(highest));

    layout l;
    std::int64_t largest_single_unit = 2;
    for (int i = 0; i < digits; ++i)
        largest_single_unit *= 10;
    int sub_bucket_count_magnitude = 64 - std::countl_zero(static_cast<std::uint64_t>(largest_single_unit - 1));
    l.sub_bucket_half_count_magnitude = std::max(sub_bucket_count_magnitude, 1) - 1;
    l.unit_magnitude = 63 - std::countl_zero(static_cast<std::uint64_t>(lowest));
    if (l.unit_magnitude + l.sub_bucket_half_count_magnitude > 61)
        return fail("histogram lowest value " + std::to_string(lowest) + " is too large for " + std::to_string(digits) +
                    " significant digits");
    l.sub_bucket_count = std::int64_t{1} << (l.sub_bucket_half_count_magnitude + 1);

    std::int64_t smallest_untrackable = l.sub_bucket_count << l.unit_magnitude;
    l.bucket_count = 1;
    while (smallest_untrackable <= highest) {
        smallest_untrackable <<= 1;
        ++l.bucket_count;
    }
    l.counts_length = static_cast<std::size_t>(l.bucket_count + 1) * static_cast<std::size_t>(l.sub_bucket_count / 2);
    return l;
}

/// Splits on single spaces; an empty field (double space, leading or trailing space) stays visible as "".
std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        auto at = text.find(separator, start);
        parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return parts;
        start = at + 1;
    }
}

template <class Integer>
result<Integer> parse_integer(std::string_view field, std::string_view name)
{
    Integer value{};
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || ec != std::errc{} || end != field.data() + field.size())
        return fail("histogram " + std::string(name) + ": expected an integer, got '" + std::string(field) + "'");
    return value;
}

/// What a histogram's counts field held: the sum of its counts and the first and last bucket with one.
struct counts_read {
    std::uint64_t counted = 0;
    std::size_t first = 0;
    std::size_t last = 0;
};

/// The counts field, "-" or counts and `~N` runs of empty buckets, into `counts` (sized by the configuration).
result<counts_read> parse_counts(std::string_view field, std::vector<std::uint64_t>& counts)
{
    counts_read out;
    if (field == "-")
        return out;
    std::size_t index = 0;
    bool after_skip = false;
    for (auto token : split(field, ',')) {
        if (index >= counts.size())
            return fail("histogram counts: more buckets than the " + std::to_string(counts.size()) +
                        " this configuration has");
        if (!token.empty() && token.front() == '~') {
            auto run = parse_integer<std::size_t>(token.substr(1), "counts: empty run");
            if (!run)
                return run.err();
            // One canonical text per histogram: a run is never empty, split in two, or at the end.
            if (*run == 0 || after_skip)
                return fail("histogram counts: '" + std::string(token) + "' must be one positive run between counts");
            if (*run >= counts.size() - index)
                return fail("histogram counts: empty run '" + std::string(token) + "' reaches past the last bucket");
            index += *run;
            after_skip = true;
            continue;
        }
        auto count = parse_integer<std::uint64_t>(token, "bucket count");
        if (!count)
            return count.err();
        if (*count == 0)
            return fail("histogram counts: bucket " + std::to_string(index) +
                        " has a zero count; empty buckets are written as ~N");
        if (out.counted + *count < out.counted)
            return fail("histogram counts: the bucket counts overflow 64 bits");
        if (out.counted == 0)
            out.first = index;
        out.last = index;
        out.counted += *count;
        counts[index++] = *count;
        after_skip = false;
    }
    if (after_skip)
        return fail("histogram counts: a trailing empty run is not written");
    return out;
}

}  // namespace

histogram::histogram(std::int64_t lowest, std::int64_t highest, int significant_digits)
    : lowest_(lowest), highest_(highest), digits_(significant_digits)
{
    auto l = make_layout(lowest, highest, significant_digits);
    if (!l)
        throw std::invalid_argument(l.err().message);
    unit_magnitude_ = l->unit_magnitude;
    sub_bucket_half_count_magnitude_ = l->sub_bucket_half_count_magnitude;
    sub_bucket_count_ = l->sub_bucket_count;
    sub_bucket_half_count_ = l->sub_bucket_count / 2;
    sub_bucket_mask_ = (l->sub_bucket_count - 1) << l->unit_magnitude;
    bucket_count_ = l->bucket_count;
    counts_.assign(l->counts_length, 0);
}

std::size_t histogram::counts_index(std::int64_t value) const noexcept
{
    // OR-ing the mask puts every value below the first bucket's top into bucket 0.
    int pow2_ceiling = 64 - std::countl_zero(static_cast<std::uint64_t>(value | sub_bucket_mask_));
    int bucket = pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
    std::int64_t sub_bucket = value >> (bucket + unit_magnitude_);
    // Buckets above 0 only use their upper half: the lower half is covered by the bucket below at finer grain.
    return static_cast<std::size_t>((std::int64_t{bucket + 1} << sub_bucket_half_count_magnitude_) +
                                    (sub_bucket - sub_bucket_half_count_));
}

std::int64_t histogram::lowest_equivalent_at(std::size_t index) const noexcept
{
    auto i = static_cast<std::int64_t>(index);
    int bucket = static_cast<int>(i >> sub_bucket_half_count_magnitude_) - 1;
    std::int64_t sub_bucket = (i & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
    if (bucket < 0) {
        sub_bucket -= sub_bucket_half_count_;
        bucket = 0;
    }
    return sub_bucket << (bucket + unit_magnitude_);
}

std::int64_t histogram::highest_equivalent_at(std::size_t index) const noexcept
{
    int bucket = std::max(static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1, 0);
    return lowest_equivalent_at(index) + (std::int64_t{1} << (bucket + unit_magnitude_)) - 1;
}

void histogram::record(std::int64_t value) noexcept
{
    record(value, 1);
}

void histogram::record(std::int64_t value, std::uint64_t count) noexcept
{
    if (count == 0)
        return;
    if (value < lowest_ || value > highest_) {
        value = std::clamp(value, lowest_, highest_);
        clamped_ += count;
    }
    counts_[counts_index(value)] += count;
    if (total_ == 0) {
        min_ = value;
        max_ = value;
    } else {
        min_ = std::min(min_, value);
        max_ = std::max(max_, value);
    }
    total_ += count;
    sum_ += static_cast<long double>(value) * static_cast<long double>(count);
}

result<void> histogram::merge(const histogram& other)
{
    if (lowest_ != other.lowest_ || highest_ != other.highest_ || digits_ != other.digits_)
        return fail("cannot merge histogram " + describe_config(other.lowest_, other.highest_, other.digits_) +
                    " into " + describe_config(lowest_, highest_, digits_) + ": configurations differ");
    if (other.total_ == 0)
        return {};
    for (std::size_t i = 0; i < counts_.size(); ++i)
        counts_[i] += other.counts_[i];
    if (total_ == 0) {
        min_ = other.min_;
        max_ = other.max_;
    } else {
        min_ = std::min(min_, other.min_);
        max_ = std::max(max_, other.max_);
    }
    total_ += other.total_;
    clamped_ += other.clamped_;
    sum_ += other.sum_;
    return {};
}

void histogram::reset() noexcept
{
    std::fill(counts_.begin(), counts_.end(), 0);
    total_ = 0;
    clamped_ = 0;
    min_ = 0;
    max_ = 0;
    sum_ = 0;
}

std::uint64_t histogram::count() const noexcept
{
    return total_;
}

std::uint64_t histogram::clamped() const noexcept
{
    return clamped_;
}

std::int64_t histogram::min() const noexcept
{
    return min_;
}

std::int64_t histogram::max() const noexcept
{
    return max_;
}

double histogram::mean() const noexcept
{
    return total_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(total_));
}

std::int64_t histogram::value_at_percentile(double percentile) const noexcept
{
    if (total_ == 0)
        return 0;
    // As HdrHistogram: step one ulp down so that p * N landing a hair above an integer through rounding does not
    // push the rank into the next bucket, then take the rank at or above the requested fraction.
    double requested = std::isnan(percentile) ? 0.0 : std::nextafter(percentile, -1.0);
    requested = std::clamp(requested, 0.0, 100.0);
    auto rank = static_cast<std::uint64_t>(std::ceil(requested / 100.0 * static_cast<double>(total_)));
    rank = std::clamp<std::uint64_t>(rank, 1, total_);
    std::uint64_t running = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        running += counts_[i];
        if (running >= rank)
            return !(percentile > 0.0) ? lowest_equivalent_at(i) : highest_equivalent_at(i);
    }
    return highest_equivalent_at(counts_index(max_));
}

std::string histogram::serialize() const
{
    std::string out(format_tag);
    for (std::int64_t field : {lowest_, highest_, std::int64_t{digits_}}) {
        out += ' ';
        append_number(field, out);
    }
    out += ' ';
    append_number(total_, out);
    out += ' ';
    append_number(clamped_, out);
    out += ' ';
    append_number(min_, out);
    out += ' ';
    append_number(max_, out);
    out += ' ';
    // Shortest fixed form that reads back to the same long double: an integer for any realistic sum.
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, sum_, std::chars_format::fixed);
    out.append(buffer, ec == std::errc{} ? end : buffer);
    out += ' ';
    // Run-length: a number is the next bucket's count and ~N skips N empty buckets, so a dense region costs a few
    // characters a bucket and an idle range costs one token; trailing empty buckets are left out.
    std::size_t empty_run = 0;
    bool first = true;
    for (auto count : counts_) {
        if (count == 0) {
            ++empty_run;
            continue;
        }
        if (!first)
            out += ',';
        first = false;
        if (empty_run > 0) {
            out += '~';
            append_number(static_cast<std::uint64_t>(empty_run), out);
            out += ',';
            empty_run = 0;
        }
        append_number(count, out);
    }
    if (first)
        out += '-';
    return out;
}

result<histogram> histogram::parse(std::string_view text)
{
    auto fields = split(text, ' ');
    constexpr std::size_t expected_fields = 10;
    if (fields.front() != format_tag)
        return fail("histogram: expected text starting with '" + std::string(format_tag) + "', got '" +
                    std::string(fields.front().substr(0, 16)) + "'");
    if (fields.size() != expected_fields)
        return fail("histogram: expected " + std::to_string(expected_fields) +
                    " space-separated fields (hist1 lowest highest digits total clamped min max sum counts), got " +
                    std::to_string(fields.size()));

    auto lowest = parse_integer<std::int64_t>(fields[1], "lowest");
    if (!lowest)
        return lowest.err();
    auto highest = parse_integer<std::int64_t>(fields[2], "highest");
    if (!highest)
        return highest.err();
    auto digits = parse_integer<int>(fields[3], "significant digits");
    if (!digits)
        return digits.err();
    if (auto l = make_layout(*lowest, *highest, *digits); !l)
        return l.err();
    auto total = parse_integer<std::uint64_t>(fields[4], "total count");
    if (!total)
        return total.err();
    auto clamped = parse_integer<std::uint64_t>(fields[5], "clamped count");
    if (!clamped)
        return clamped.err();
    auto min = parse_integer<std::int64_t>(fields[6], "min");
    if (!min)
        return min.err();
    auto max = parse_integer<std::int64_t>(fields[7], "max");
    if (!max)
        return max.err();
    long double sum = 0;
    {
        auto f = fields[8];
        auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), sum, std::chars_format::fixed);
        if (f.empty() || ec != std::errc{} || end != f.data() + f.size() || !std::isfinite(sum) || sum < 0)
            return fail("histogram sum: expected a non-negative number, got '" + std::string(f) + "'");
    }

    histogram h(*lowest, *highest, *digits);
    auto read = parse_counts(fields[9], h.counts_);
    if (!read)
        return read.err();
    auto [counted, first_index, last_index] = *read;
    if (counted != *total)
        return fail("histogram total count " + std::to_string(*total) + " does not match the bucket counts (" +
                    std::to_string(counted) + ")");
    if (*clamped > *total)
        return fail("histogram clamped count " + std::to_string(*clamped) + " exceeds the total " +
                    std::to_string(*total));
    if (*total == 0) {
        if (*min != 0 || *max != 0 || sum != 0)
            return fail("histogram: an empty histogram must have min, max and sum 0");
    } else {
        if (*min < *lowest || *max > *highest || *min > *max)
            return fail("histogram min " + std::to_string(*min) + " and max " + std::to_string(*max) +
                        " must satisfy lowest <= min <= max <= highest");
        if (h.counts_index(*min) != first_index || h.counts_index(*max) != last_index)
            return fail("histogram min " + std::to_string(*min) + " and max " + std::to_string(*max) +
                        " do not fall in the first and last non-empty buckets");
        auto n = static_cast<long double>(*total);
        if (sum < static_cast<long double>(*min) * n || sum > static_cast<long double>(*max) * n)
            return fail("histogram sum is outside total * min .. total * max");
    }
    h.total_ = *total;
    h.clamped_ = *clamped;
    h.min_ = *min;
    h.max_ = *max;
    h.sum_ = sum;
    return h;
}

result<histogram> histogram::from_counts(std::int64_t lowest, std::int64_t highest, int significant_digits,
                                         const std::vector<std::uint64_t>& counts)
{
    if (auto l = make_layout(lowest, highest, significant_digits); !l)
        return l.err();
    histogram h(lowest, highest, significant_digits);
    if (counts.size() > h.counts_.size())
        return fail("histogram counts: " + std::to_string(counts.size()) + " buckets, more than the " +
                    std::to_string(h.counts_.size()) + " of " + describe_config(lowest, highest, significant_digits));
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] == 0)
            continue;
        if (h.total_ + counts[i] < h.total_)
            return fail("histogram counts: the bucket counts overflow 64 bits");
        if (h.total_ == 0)
            h.min_ = h.lowest_equivalent_at(i);
        h.max_ = h.highest_equivalent_at(i);
        h.counts_[i] = counts[i];
        h.total_ += counts[i];
        // HdrHistogram's mean: every value of a bucket counted at the bucket's middle.
        auto low = h.lowest_equivalent_at(i);
        auto middle = low + (h.highest_equivalent_at(i) - low + 1) / 2;
        h.sum_ += static_cast<long double>(middle) * static_cast<long double>(counts[i]);
    }
    // The bucket edges may lie outside the configured range (the first bucket starts at 0); keep min and max inside
    // it so the text form stays valid.
    if (h.total_ > 0) {
        h.min_ = std::clamp(h.min_, h.lowest_, h.highest_);
        h.max_ = std::clamp(h.max_, h.lowest_, h.highest_);
        h.sum_ = std::clamp(h.sum_, static_cast<long double>(h.min_) * static_cast<long double>(h.total_),
                            static_cast<long double>(h.max_) * static_cast<long double>(h.total_));
    }
    return h;
}

bool operator==(const histogram& a, const histogram& b) noexcept
{
    return a.lowest_ == b.lowest_ && a.highest_ == b.highest_ && a.digits_ == b.digits_ && a.total_ == b.total_ &&
           a.clamped_ == b.clamped_ && a.min_ == b.min_ && a.max_ == b.max_ && a.sum_ == b.sum_ &&
           a.counts_ == b.counts_;
}

}  // namespace execbench::stats
