#include "execbench/report/read/merge.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/text.hpp"
#include "execbench/stats/hdr_codec.hpp"
#include "execbench/stats/interval_log.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>

namespace execbench::report {

namespace {

// Interval logs give times to the millisecond: a bound within half of one still counts as met.
constexpr double time_slack = 0.0005;

std::string millis(std::int64_t micros)
{
    return fixed(static_cast<double>(micros) / 1000.0, 3);
}

}  // namespace

result<merge_result> merge_logs(const merge_options& options)
{
    if (options.logs.empty())
        return fail("no interval logs given");
    if (options.from_seconds && options.to_seconds && *options.to_seconds <= *options.from_seconds)
        return fail("--to must be after --from");
    // The texts stay in memory, the histograms are decoded one interval at a time: a long log costs its text only.
    std::vector<std::string> texts;
    merge_result out;
    out.origin_epoch_seconds = std::numeric_limits<double>::infinity();
    auto no_op = [](const stats::log_times&, const stats::log_line&) -> result<void> { return {}; };
    for (const auto& file : options.logs) {
        auto text = read_file(file);
        if (!text)
            return text.err();
        auto times = stats::scan_interval_log(*text, no_op);
        if (!times)
            return fail(file.string() + ": " + times.err().message);
        out.origin_epoch_seconds = std::min(out.origin_epoch_seconds, times->start_time_seconds);
        texts.push_back(std::move(text.value()));
    }

    std::vector<std::string> tags_seen;
    std::vector<std::size_t> last_log;  // per series: 1 + the index of the last log that added to it
    for (std::size_t li = 0; li < texts.size(); ++li) {
        auto add = [&](const stats::log_times& times, const stats::log_line& line) -> result<void> {
            if (std::find(tags_seen.begin(), tags_seen.end(), line.tag) == tags_seen.end())
                tags_seen.emplace_back(line.tag);
            if (options.tag && line.tag != *options.tag)
                return {};
            double start = times.base_time_seconds + line.start_seconds - out.origin_epoch_seconds;
            double end = start + line.length_seconds;
            // An interval belongs to the window that holds its middle: generators whose clocks or starts differ
            // by less than half an interval (half a second) put their same seconds in the same windows.
            double middle = start + line.length_seconds / 2;
            if (options.from_seconds && middle < *options.from_seconds - time_slack)
                return {};
            if (options.to_seconds && middle >= *options.to_seconds - time_slack)
                return {};
            auto values = stats::decode_log_payload(line.payload);
            if (!values)
                return values.err();
            auto it =
                std::find_if(out.series.begin(), out.series.end(), [&](const auto& s) { return s.tag == line.tag; });
            if (it == out.series.end()) {
                out.series.push_back(
                    {std::string(line.tag),
                     stats::histogram(values->lowest(), values->highest(), values->significant_digits()), 0, 0, start,
                     end});
                it = std::prev(out.series.end());
                last_log.push_back(0);
            }
            if (auto merged = it->values.merge(*values); !merged)
                return fail("tag '" + std::string(line.tag) + "': " + merged.err().message);
            ++it->intervals;
            it->first_start = std::min(it->first_start, start);
            it->last_end = std::max(it->last_end, end);
            // Logs are read one after the other, so a tag's last log tells whether this one is counted yet.
            auto& last = last_log[static_cast<std::size_t>(it - out.series.begin())];
            if (last != li + 1) {
                last = li + 1;
                ++it->logs;
            }
            return {};
        };
        if (auto read = stats::scan_interval_log(texts[li], add); !read)
            return fail(options.logs[li].string() + ": " + read.err().message);
    }
    if (options.tag && std::find(tags_seen.begin(), tags_seen.end(), *options.tag) == tags_seen.end()) {
        std::string known;
        for (const auto& t : tags_seen)
            known += (known.empty() ? "" : ", ") + (t.empty() ? std::string("(untagged)") : t);
        return fail("no interval tagged '" + *options.tag + "' (the logs have: " + known + ")");
    }
    if (out.series.empty())
        return fail("no interval lies wholly inside the window");
    return out;
}

std::string format_merge(const merge_result& m)
{
    std::string out = "| tag | requests | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | intervals | logs | seconds |\n"
                      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& s : m.series) {
        char window[64];
        std::snprintf(window, sizeof window, "%.3f..%.3f", s.first_start, s.last_end);
        out += "| " + (s.tag.empty() ? std::string("(untagged)") : s.tag) + " | " + std::to_string(s.values.count()) +
               " | " + millis(s.values.value_at_percentile(50)) + " | " + millis(s.values.value_at_percentile(90)) +
               " | " + millis(s.values.value_at_percentile(99)) + " | " + millis(s.values.value_at_percentile(99.9)) +
               " | " + millis(s.values.value_at_percentile(100)) + " | " + std::to_string(s.intervals) + " | " +
               std::to_string(s.logs) + " | " + window + " |\n";
    }
    return out;
}

}  // namespace execbench::report
