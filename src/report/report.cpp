#include "execbench/report/report.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/report/chart_data/capacity_chart.hpp"
#include "execbench/report/chart_data/chart_hash.hpp"
#include "execbench/report/chart_data/map_chart.hpp"
#include "execbench/report/chart_data/scenario_chart.hpp"
#include "execbench/report/chart_data/summary_chart.hpp"
#include "execbench/report/chart_data/winners_chart.hpp"
#include "execbench/report/headline/headline.hpp"
#include "execbench/report/html_pages.hpp"
#include "execbench/report/page/markdown.hpp"
#include "execbench/report/suite_page/map_section.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace execbench::report {

namespace {

/// A file's text, or "" when it cannot be read (a page not written yet).
std::string read_text(const std::filesystem::path& p)
{
    return read_file(p).value_or("");
}

}  // namespace

report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths,
                           const std::vector<std::string>& pages)
{
    report_output out;
    for (const auto& s : suites) {
        if (!pages.empty() && std::find(pages.begin(), pages.end(), s.name) == pages.end())
            continue;
        out.files.push_back({paths.docs_dir / (s.name + ".md"), suite_markdown(s, paths)});
        out.html.push_back({paths.docs_dir / (s.name + ".html"), suite_html(s, paths)});
        std::string list;
        for (const auto& sc : s.scenarios) {
            if (!any_ran(s, sc))
                continue;
            auto data = scenario_chart_data(s, sc).dump();
            chart_job job{paths.docs_dir / s.name / chart_name(sc), data, fnv1a_hex(data)};
            list += chart_name(sc) + " " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        for (const auto& sc : s.capacity_scenarios) {
            auto j = capacity_chart_data(s, sc);
            if (j["arms"].empty())
                continue;
            auto data = j.dump();
            chart_job job{paths.docs_dir / s.name / capacity_chart_name(sc), data, fnv1a_hex(data)};
            list += capacity_chart_name(sc) + " " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        if (auto m = read_workload_map(s)) {
            auto data = map_chart_data(s, *m).dump();
            chart_job job{paths.docs_dir / s.name / map_chart_name, data, fnv1a_hex(data)};
            list += std::string(map_chart_name) + " " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        if (auto j = winners_chart_data(s); !j.is_null()) {
            auto data = j.dump();
            chart_job job{paths.docs_dir / s.name / "winners.svg", data, fnv1a_hex(data)};
            list += "winners.svg " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        out.chart_lists.push_back({paths.docs_dir / s.name / "charts.txt", list});
    }
    out.readme_block = headline_block(suites, paths);
    for (const auto& s : suites)
        if (auto map = map_headline(s, paths); !map.empty()) {
            out.readme_map = "\n" + to_markdown(map) + "\n";
            break;
        }
    if (!suites.empty()) {
        out.html.push_back({paths.docs_dir / "index.html", index_html(suites, paths)});
        if (auto j = summary_chart_data(suites); !j.is_null()) {
            auto data = j.dump();
            chart_job job{paths.docs_dir / summary_chart_name, data, fnv1a_hex(data)};
            out.chart_lists.push_back(
                {paths.docs_dir / "charts.txt", std::string(summary_chart_name) + " " + job.hash + "\n"});
            out.charts.push_back(std::move(job));
        }
    }
    return out;
}

namespace {

/// Writes through a temporary file and a rename, so a reader never sees half a file and a failure leaves the old one.
result<void> write_text(const std::filesystem::path& p, const std::string& content)
{
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    auto tmp = p;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        if (!out) {
            std::filesystem::remove(tmp, ec);
            return fail(p.string() + ": cannot write");
        }
    }
    std::filesystem::rename(tmp, p, ec);
    if (ec)
        return fail(p.string() + ": cannot write: " + ec.message());
    return {};
}

std::filesystem::path with_suffix(std::filesystem::path p, const char* suffix)
{
    p += suffix;
    return p;
}

/// True when the chart list says `c` was drawn from the same data and its file exists.
bool chart_fresh(const report_output& out, const chart_job& c)
{
    for (const auto& l : out.chart_lists) {
        if (l.path.parent_path() != c.file.parent_path() || !std::filesystem::exists(l.path) ||
            !std::filesystem::exists(c.file))
            continue;
        return read_text(l.path).find(c.file.filename().string() + " " + c.hash + "\n") != std::string::npos;
    }
    return false;
}

/// The README with its generated blocks replaced: the headline table, and the map where the README has its markers.
std::string readme_text(const std::string& current, const report_output& out)
{
    return replace_map_block(replace_headline(current, out.readme_block), out.readme_map);
}

/// Draws the charts whose data changed into staging files beside their targets; only when every one was drawn are
/// they renamed into place, so a failure overwrites nothing.
result<void> draw_charts(const report_output& out, const std::filesystem::path& chart_script, const std::string& python)
{
    nlohmann::json jobs = nlohmann::json::array();
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged;  // staging → final
    for (const auto& c : out.charts) {
        if (chart_fresh(out, c))
            continue;
        std::error_code ec;
        std::filesystem::create_directories(c.file.parent_path(), ec);
        auto svg = with_suffix(c.file, ".new.svg");
        jobs.push_back({{"svg", svg.string()}, {"name", c.file.stem().string()}, {"data", nlohmann::json::parse(c.data_json)}});
        staged.emplace_back(svg, c.file);
    }
    if (jobs.empty())
        return {};
    auto discard = [&] {
        std::error_code ec;
        for (const auto& [from, to] : staged) {
            std::filesystem::remove(from, ec);
            // Folders made for the charts go too when empty: a failed run leaves the docs as they were.
            std::filesystem::remove(to.parent_path(), ec);
            std::filesystem::remove(to.parent_path().parent_path(), ec);
        }
    };
    auto jobs_file = std::filesystem::temp_directory_path() / ("execbench-charts-" + fnv1a_hex(jobs.dump()) + ".json");
    if (auto w = write_text(jobs_file, jobs.dump()); !w)
        return w;
    auto rc = run_command({python, chart_script.string(), jobs_file.string()});
    std::error_code ec;
    std::filesystem::remove(jobs_file, ec);
    if (!rc || *rc != 0) {
        discard();
        if (!rc)
            return fail("chart script " + chart_script.string() + ": " + rc.err().message +
                        " (--no-charts skips the charts); nothing was written");
        return fail("chart script " + chart_script.string() + " failed, exit status " + std::to_string(*rc) +
                    "; is python3-matplotlib installed? (--no-charts skips the charts); nothing was written");
    }
    for (const auto& [from, to] : staged) {
        std::filesystem::rename(from, to, ec);
        if (ec) {
            discard();
            return fail(to.string() + ": cannot write: " + ec.message());
        }
    }
    return {};
}

}  // namespace

result<std::filesystem::path> readme_target(const std::filesystem::path& readme)
{
    namespace fs = std::filesystem;
    auto refuse = [&](const std::string& what) -> result<fs::path> {
        return fail(readme.string() + ": " + what +
                    "; bench-report writes its headline block only into a regular file (--no-readme leaves the "
                    "README alone)");
    };
    fs::path p = readme;
    std::error_code ec;
    // Follow the links as the kernel does, with its limit on their number, so a loop is an error and not a hang.
    for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
        if (hops == 40)
            return refuse("too many levels of symbolic links");
        auto to = fs::read_symlink(p, ec);
        if (ec)
            return refuse("cannot read the symbolic link: " + ec.message());
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    auto st = fs::status(p, ec);
    if (st.type() == fs::file_type::not_found || st.type() == fs::file_type::regular)
        return p;
    if (ec)
        return refuse("cannot stat: " + ec.message());
    const char* kind = st.type() == fs::file_type::directory   ? "a directory"
                       : st.type() == fs::file_type::character ? "a character device"
                       : st.type() == fs::file_type::block     ? "a block device"
                       : st.type() == fs::file_type::fifo      ? "a FIFO"
                       : st.type() == fs::file_type::socket    ? "a socket"
                                                               : "not a regular file";
    return refuse(p == readme ? std::string("is ") + kind : "links to " + p.string() + ", " + kind);
}

result<void> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python)
{
    if (!python.empty())
        if (auto d = draw_charts(out, chart_script, python); !d)
            return d;
    for (const auto& f : out.files)
        if (auto w = write_text(f.path, f.content); !w)
            return w;
    for (const auto& f : out.html)
        if (auto w = write_text(f.path, f.content); !w)
            return w;
    if (!python.empty())
        for (const auto& l : out.chart_lists)
            if (auto w = write_text(l.path, l.content); !w)
                return w;
    if (readme.empty())
        return {};
    std::string current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    return write_text(readme, readme_text(current, out));
}

std::vector<std::string> stale_files(const report_output& out, const std::filesystem::path& readme)
{
    std::vector<std::string> stale;
    auto check = [&](const generated_file& f) {
        if (!std::filesystem::exists(f.path))
            stale.push_back(f.path.string() + " (missing)");
        else if (read_text(f.path) != f.content)
            stale.push_back(f.path.string() + " (differs)");
    };
    for (const auto& f : out.files)
        check(f);
    for (const auto& f : out.html)
        check(f);
    for (const auto& f : out.chart_lists)
        check(f);
    for (const auto& c : out.charts)
        if (!std::filesystem::exists(c.file))
            stale.push_back(c.file.string() + " (missing)");
    if (readme.empty())
        return stale;
    auto current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    if (readme_text(current, out) != current)
        stale.push_back(readme.string() + " (headline or map block differs)");
    return stale;
}

}  // namespace execbench::report
