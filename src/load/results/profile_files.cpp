#include "execbench/load/results/profile_files.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/file.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/flame_graph.hpp"
#include "execbench/load/results/results.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>

namespace execbench::load {

namespace {

using detail::csv_field;

/// The columns of a profile's counts, every schema's; the current one's end with `schema`.
constexpr std::string_view columns = "run_id,started_at,git_revision,scenario,arm,model,kind,name,total,per_request";
const std::string header = std::string(columns) + ",schema";

result<void> write_text(const std::filesystem::path& file, const std::string& text)
{
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        return fail(file.string() + ": cannot write");
    return {};
}

double number(const std::string& s)
{
    double v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

}  // namespace

std::string format_folded(const folded_stacks& stacks)
{
    std::string out;
    for (const auto& [stack, samples] : stacks)
        out += stack + " " + std::to_string(samples) + "\n";
    return out;
}

result<folded_stacks> parse_folded(std::string_view text)
{
    folded_stacks out;
    unsigned line_number = 0;
    for (std::size_t at = 0; at < text.size();) {
        auto nl = std::min(text.find('\n', at), text.size());
        auto line = text.substr(at, nl - at);
        at = nl + 1;
        ++line_number;
        if (line.empty())
            continue;
        auto space = line.rfind(' ');
        std::uint64_t samples = 0;
        auto count = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
        auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), samples);
        if (space == std::string_view::npos || count.empty() || ec != std::errc{} || p != count.data() + count.size())
            return fail("folded stacks line " + std::to_string(line_number) + ": not 'stack samples'");
        out[std::string(line.substr(0, space))] += samples;
    }
    return out;
}

std::vector<self_time> top_self_time(const folded_stacks& stacks, std::size_t count)
{
    std::map<std::string, std::uint64_t> leaves;
    std::uint64_t total = 0;
    for (const auto& [stack, samples] : stacks) {
        auto semi = stack.rfind(';');
        leaves[semi == std::string::npos ? stack : stack.substr(semi + 1)] += samples;
        total += samples;
    }
    std::vector<self_time> out;
    for (const auto& [function, samples] : leaves)
        out.push_back({function, samples, total ? 100.0 * double(samples) / double(total) : 0});
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
    if (out.size() > count)
        out.resize(count);
    return out;
}

std::string format_profile_csv(const profile_record& r)
{
    std::string out = std::string(header) + "\n";
    auto prefix = csv_field(r.run_id) + "," + csv_field(r.started_at) + "," + csv_field(r.git_revision) + "," +
                  csv_field(r.scenario) + "," + csv_field(r.arm) + "," + csv_field(r.model) + ",";
    for (const auto& c : r.counts) {
        bool per_request = c.kind != "trial" && c.kind != "note";
        out += prefix + csv_field(c.kind) + "," + csv_field(c.name) + "," +
               (c.kind == "note" ? std::string{} : fixed(c.total, c.kind == "trial" && c.name == "seconds" ? 3 : 1)) +
               "," + (per_request ? fixed(c.per_request, 4) : std::string{}) + "," + std::to_string(schema_version) +
               "\n";
    }
    return out;
}

result<profile_record> read_profile_csv(const std::filesystem::path& file)
{
    auto table = read_csv(file);
    if (!table)
        return table.err();
    std::string got;
    for (const auto& h : table->header)
        got += (got.empty() ? "" : ",") + h;
    if (got != header && got != columns)
        return fail(file.string() + ": not a profile's counts (header '" + got + "')");
    auto rows = current_rows(*table, row_kind::profile, file);
    if (!rows)
        return rows.err();
    profile_record r;
    for (const auto& row : *rows) {
        r.run_id = cell_of(row, column::run_id);
        r.started_at = cell_of(row, column::started_at);
        r.git_revision = cell_of(row, column::git_revision);
        r.scenario = cell_of(row, column::scenario);
        r.arm = cell_of(row, column::arm);
        r.model = cell_of(row, column::model);
        r.counts.push_back({cell_of(row, "kind"), cell_of(row, "name"), number(cell_of(row, "total")),
                            number(cell_of(row, "per_request"))});
    }
    return r;
}

result<void> write_profile(const profile_capture& c, const std::filesystem::path& out_dir)
{
    auto record = profile_record_of(c);
    auto path = [&](std::string_view ext) { return profile_path(out_dir, record.scenario, record.arm, ext); };
    if (!c.stacks.empty()) {
        auto title = record.scenario + " · " + record.arm + ": profiled trial (under perf, not a result)";
        if (auto w = write_text(path("folded"), format_folded(c.stacks)); !w)
            return w;
        if (auto w = write_text(path("svg"), flame_graph_svg(c.stacks, title)); !w)
            return w;
    } else {
        // A flame graph of an earlier profile must not stand beside counts it did not come from.
        std::error_code ec;
        std::filesystem::remove(path("folded"), ec);
        std::filesystem::remove(path("svg"), ec);
    }
    return write_text(path("csv"), format_profile_csv(record));
}

}  // namespace execbench::load
