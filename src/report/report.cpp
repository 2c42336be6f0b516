#include "execbench/report/report.hpp"

#include "execbench/core/run_command.hpp"
#include "execbench/report/charts.hpp"
#include "execbench/report/headline.hpp"
#include "execbench/report/markdown.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace execbench::report {

namespace {

std::string read_text(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

report_output build_report(const std::vector<suite_data>& suites, const report_paths& paths)
{
    report_output out;
    for (const auto& s : suites) {
        out.files.push_back({paths.docs_dir / (s.name + ".md"), suite_markdown(s, paths)});
        std::string list;
        for (const auto& sc : s.scenarios) {
            if (!any_ran(s, sc))
                continue;
            auto data = scenario_chart_data(s, sc).dump();
            chart_job job{paths.docs_dir / s.name / chart_name(sc), data, fnv1a_hex(data)};
            list += chart_name(sc) + " " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        if (auto j = winners_chart_data(s); !j.is_null()) {
            auto data = j.dump();
            chart_job job{paths.docs_dir / s.name / "winners.png", data, fnv1a_hex(data)};
            list += "winners.png " + job.hash + "\n";
            out.charts.push_back(std::move(job));
        }
        out.chart_lists.push_back({paths.docs_dir / s.name / "charts.txt", list});
    }
    out.readme_block = headline_block(suites, paths);
    return out;
}

namespace {

result<bool> write_text(const std::filesystem::path& p, const std::string& content)
{
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out)
        return fail(p.string() + ": cannot write");
    return true;
}

}  // namespace

result<bool> write_report(const report_output& out, const std::filesystem::path& readme,
                          const std::filesystem::path& chart_script, const std::string& python)
{
    for (const auto& f : out.files)
        if (auto w = write_text(f.path, f.content); !w)
            return w;
    std::string current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    if (auto w = write_text(readme, replace_headline(current, out.readme_block)); !w)
        return w;
    if (python.empty())
        return true;

    // Only charts whose data changed are drawn again.
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& c : out.charts) {
        bool fresh = false;
        for (const auto& l : out.chart_lists) {
            if (l.path.parent_path() != c.png.parent_path() || !std::filesystem::exists(l.path) ||
                !std::filesystem::exists(c.png))
                continue;
            auto text = read_text(l.path);
            fresh = text.find(c.png.filename().string() + " " + c.hash + "\n") != std::string::npos;
        }
        if (fresh)
            continue;
        std::error_code ec;
        std::filesystem::create_directories(c.png.parent_path(), ec);
        jobs.push_back({{"png", c.png.string()}, {"data", nlohmann::json::parse(c.data_json)}});
    }
    if (!jobs.empty()) {
        auto jobs_file = std::filesystem::temp_directory_path() / ("execbench-charts-" + fnv1a_hex(jobs.dump()) + ".json");
        if (auto w = write_text(jobs_file, jobs.dump()); !w)
            return w;
        auto rc = run_command({python, chart_script.string(), jobs_file.string()});
        std::error_code ec;
        std::filesystem::remove(jobs_file, ec);
        if (!rc)
            return fail("chart script " + chart_script.string() + ": " + rc.err().message +
                        " (--no-charts skips the charts)");
        if (*rc != 0)
            return fail("chart script " + chart_script.string() + " failed, exit status " + std::to_string(*rc) +
                        "; is python3-matplotlib installed? (--no-charts skips the charts)");
    }
    for (const auto& l : out.chart_lists)
        if (auto w = write_text(l.path, l.content); !w)
            return w;
    return true;
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
    for (const auto& f : out.chart_lists)
        check(f);
    for (const auto& c : out.charts)
        if (!std::filesystem::exists(c.png))
            stale.push_back(c.png.string() + " (missing)");
    auto current = std::filesystem::exists(readme) ? read_text(readme) : std::string{};
    if (replace_headline(current, out.readme_block) != current)
        stale.push_back(readme.string() + " (headline block differs)");
    return stale;
}

}  // namespace execbench::report
