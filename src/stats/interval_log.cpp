#include "execbench/stats/interval_log.hpp"

#include "execbench/core/text.hpp"
#include "execbench/stats/hdr_codec.hpp"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace execbench::stats {

namespace {

constexpr std::string_view format_version = "1.3";  // what HdrHistogram 2.1.11's HistogramLogWriter writes
constexpr std::string_view legend =
    R"("StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram")";
constexpr std::string_view start_time_marker = "#[StartTime: ";
constexpr std::string_view base_time_marker = "#[BaseTime: ";
constexpr std::string_view tag_prefix = "Tag=";

std::string seconds_text(double seconds)
{
    return fixed(seconds, 3);
}

/// Reads the number a StartTime or BaseTime comment starts with.
result<double> leading_number(std::string_view text)
{
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end == text.data())
        return fail("expected seconds since the epoch, got '" + std::string(text.substr(0, 24)) + "'");
    return v;
}

result<double> number_field(std::string_view field, std::string_view name)
{
    double v = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc{} || end != field.data() + field.size())
        return fail(std::string(name) + ": expected a number, got '" + std::string(field.substr(0, 24)) + "'");
    return v;
}

}  // namespace

std::string format_log_header(std::int64_t start_epoch_ms, const std::vector<std::string>& comments)
{
    std::string out;
    for (const auto& c : comments)
        out += "#" + c + "\n";
    out += "#[Histogram log format version " + std::string(format_version) + "]\n";
    auto seconds = seconds_text(static_cast<double>(start_epoch_ms) / 1000.0);
    std::time_t whole = static_cast<std::time_t>(start_epoch_ms / 1000);
    std::tm utc{};
    gmtime_r(&whole, &utc);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
    char millis[16];
    std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(start_epoch_ms % 1000));
    out += std::string(start_time_marker) + seconds + " (seconds since epoch), " + date + millis + "]\n";
    out += std::string(base_time_marker) + seconds + " (seconds since epoch)]\n";
    out += std::string(legend) + "\n";
    return out;
}

result<std::string> format_log_interval(const log_interval& interval, double max_unit_ratio)
{
    if (interval.tag.find_first_of(", \t\r\n") != std::string::npos)
        return fail("interval log tag '" + interval.tag + "' holds a comma, space or line break");
    auto payload = encode_log_payload(interval.values);
    if (!payload)
        return payload.err();
    std::string line;
    if (!interval.tag.empty())
        line += std::string(tag_prefix) + interval.tag + ",";
    line += seconds_text(interval.start_seconds) + "," + seconds_text(interval.length_seconds) + "," +
            seconds_text(static_cast<double>(interval.values.max()) / max_unit_ratio) + "," + *payload + "\n";
    return line;
}

result<log_times> scan_interval_log(std::string_view text, const log_visitor& visit)
{
    log_times times;
    bool seen_start = false;
    bool seen_base = false;
    std::size_t line_number = 0;
    while (!text.empty()) {
        auto end = text.find('\n');
        auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line_number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        auto at_line = [&](const std::string& what) {
            return fail("interval log line " + std::to_string(line_number) + ": " + what);
        };
        if (line.empty())
            continue;
        if (line.front() == '#') {
            bool start = line.starts_with(start_time_marker);
            bool base = line.starts_with(base_time_marker);
            if (!start && !base)
                continue;
            auto v = leading_number(line.substr(start ? start_time_marker.size() : base_time_marker.size()));
            if (!v)
                return at_line(v.err().message);
            (start ? times.start_time_seconds : times.base_time_seconds) = *v;
            (start ? seen_start : seen_base) = true;
            continue;
        }
        if (line.starts_with("\"StartTimestamp\""))
            continue;

        log_line parsed;
        if (line.starts_with(tag_prefix)) {
            auto comma = line.find(',');
            if (comma == std::string_view::npos)
                return at_line("a tag and nothing else");
            parsed.tag = line.substr(tag_prefix.size(), comma - tag_prefix.size());
            line.remove_prefix(comma + 1);
        }
        std::string_view fields[4];
        for (int i = 0; i < 4; ++i) {
            auto comma = i < 3 ? line.find(',') : std::string_view::npos;
            if (i < 3 && comma == std::string_view::npos)
                return at_line("expected start,length,max,histogram");
            fields[i] = line.substr(0, comma);
            line = comma == std::string_view::npos ? std::string_view{} : line.substr(comma + 1);
        }
        if (fields[3].find(',') != std::string_view::npos)
            return at_line("more than four fields after the tag");
        auto start = number_field(fields[0], "start timestamp");
        if (!start)
            return at_line(start.err().message);
        auto length = number_field(fields[1], "interval length");
        if (!length)
            return at_line(length.err().message);
        if (auto max = number_field(fields[2], "interval max"); !max)
            return at_line(max.err().message);
        // As HdrHistogram's reader: without a StartTime the first interval starts the log, and without a BaseTime
        // timestamps below the start time are taken as relative to it.
        if (!seen_start) {
            times.start_time_seconds = *start;
            seen_start = true;
        }
        if (!seen_base) {
            times.base_time_seconds = *start < times.start_time_seconds ? times.start_time_seconds : 0.0;
            seen_base = true;
        }
        parsed.start_seconds = *start;
        parsed.length_seconds = *length;
        parsed.payload = fields[3];
        if (auto ok = visit(times, parsed); !ok)
            return at_line(ok.err().message);
    }
    return times;
}

result<interval_log> parse_interval_log(std::string_view text)
{
    interval_log log;
    auto times = scan_interval_log(text, [&](const log_times&, const log_line& line) -> result<void> {
        auto values = decode_log_payload(line.payload);
        if (!values)
            return values.err();
        log.intervals.push_back(
            {std::string(line.tag), line.start_seconds, line.length_seconds, std::move(values.value())});
        return {};
    });
    if (!times)
        return times.err();
    log.times = *times;
    return log;
}

}  // namespace execbench::stats
