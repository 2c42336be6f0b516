#include "execbench/load/results/hlog.hpp"

#include "execbench/load/record/schema.hpp"
#include "execbench/stats/interval_log.hpp"

#include <algorithm>
#include <fstream>
#include <utility>
#include <vector>

namespace execbench::load {

namespace {

using wall_clock = std::chrono::system_clock;

std::int64_t epoch_ms(wall_clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

/// A tag field HdrHistogram's reader keeps whole: its separators become '_'.
std::string tag_for(std::string_view arm, std::string_view series)
{
    std::string tag = std::string(arm) + "/" + std::string(series);
    auto splits = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    std::replace_if(tag.begin(), tag.end(), splits, '_');
    return tag;
}

/// An interval line and when it starts, to put the lines in time order.
using timed_line = std::pair<double, std::string>;

/// Appends one group's seconds under two tags (latency, service).
result<void> append_group(std::vector<timed_line>& out, const group_measurement& g, std::int64_t base_ms,
                          std::string_view arm, std::string_view latency_series, std::string_view service_series)
{
    if (g.started_wall == wall_clock::time_point{})
        return {};
    double offset = static_cast<double>(epoch_ms(g.started_wall) - base_ms) / 1000.0;
    // Seconds with only errors or nothing at all still get their (empty) interval, so the log has no holes.
    auto seconds = std::max({g.latency_seconds.size(), g.service_seconds.size(), g.timeline.size()});
    for (std::size_t s = 0; s < seconds; ++s) {
        for (auto [series, values] :
             {std::pair{latency_series, &g.latency_seconds}, std::pair{service_series, &g.service_seconds}}) {
            auto line =
                stats::format_log_interval({tag_for(arm, series), offset + static_cast<double>(s), 1.0, values->at(s)});
            if (!line)
                return line.err();
            out.emplace_back(offset + static_cast<double>(s), std::move(line.value()));
        }
    }
    return {};
}

}  // namespace

result<std::string> format_hlog(const run_record& r)
{
    wall_clock::time_point first{};
    for (const auto& t : r.trials) {
        auto started = t.measured.foreground.started_wall;
        if (started != wall_clock::time_point{} && (first == wall_clock::time_point{} || started < first))
            first = started;
    }
    auto base_ms = epoch_ms(first);
    std::vector<std::string> comments{
        "[execbench " + r.context.execbench_version + " " + r.context.git_revision + " run_id=" + r.run_id +
            " scenario=" + r.scenario_used.name + " arm=" + r.arm_name() + " model=" + r.server.model +
            " trials=" + std::to_string(r.trials.size()) + " schema=" + std::to_string(schema_version) + "]",
        "[values in microseconds; Interval_Max in milliseconds; tags <arm>/<series>]"};
    std::vector<timed_line> lines;
    for (const auto& t : r.trials) {
        const auto& m = t.measured;
        if (auto ok = append_group(lines, m.foreground, base_ms, r.arm_name(), hlog_series[0], hlog_series[1]); !ok)
            return ok.err();
        if (m.background)
            if (auto ok = append_group(lines, *m.background, base_ms, r.arm_name(), hlog_series[2], hlog_series[3]);
                !ok)
                return ok.err();
    }
    // HdrHistogram's reader expects start times in order; the background group's seconds interleave the foreground's.
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out = stats::format_log_header(base_ms, comments);
    for (const auto& [start, line] : lines)
        out += line;
    return out;
}

result<void> write_hlog(const run_record& r, const std::filesystem::path& file)
{
    auto text = format_hlog(r);
    if (!text)
        return text.err();
    std::error_code ec;
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path(), ec);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
        return fail(file.string() + ": cannot be opened for writing");
    out << *text;
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

}  // namespace execbench::load
