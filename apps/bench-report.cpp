// bench-report: regenerates docs/results/<suite>.md, its charts and the README headline from results/.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/file.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"
#include "execbench/report/read/merge.hpp"
#include "execbench/report/report.hpp"
#include "execbench/report/word/compare_page.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

/// The chart script: given, or src/report/charts.py in the working tree or above this binary (a build folder
/// inside the repository).
std::filesystem::path find_chart_script()
{
    auto look_up = [](std::filesystem::path dir) -> std::filesystem::path {
        for (int i = 0; i < 4 && !dir.empty(); ++i) {
            auto p = dir / "src" / "report" / "charts.py";
            if (std::filesystem::exists(p))
                return p;
            if (dir == dir.parent_path())
                break;
            dir = dir.parent_path();
        }
        return {};
    };
    std::error_code ec;
    if (auto p = look_up(std::filesystem::current_path(ec)); !p.empty())
        return p;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        if (auto p = look_up(self.parent_path()); !p.empty())
            return p;
        auto shared = self.parent_path().parent_path() / "share" / "execbench" / "charts.py";
        if (std::filesystem::exists(shared))
            return shared;
    }
    return {};
}

/// Debian's interpreter first: python3-matplotlib is installed for it, not for other pythons on the PATH.
std::string default_python()
{
    if (std::filesystem::exists("/usr/bin/python3"))
        return "/usr/bin/python3";
    return "python3";
}


namespace report = execbench::report;
namespace apps = execbench::apps;

/// What the pages command (bench-report without a subcommand) was given.
struct page_options {
    std::string results = "results";
    std::string docs = "docs/results";
    bool docs_given = false;
    std::string readme = "README.md";
    bool readme_given = false;
    bool no_readme = false;
    std::vector<std::string> suites;
    std::string headline;
    bool check = false;
    bool no_charts = false;
    std::optional<std::string> chart_script;
    std::string python = default_python();
};

int usage(const std::string& what)
{
    return apps::usage_error("bench-report", what);
}

int run_compare(const report::compare_options& co, const std::string& format)
{
    auto c = report::compare_results(co);
    if (!c)
        return apps::usage_error("bench-report compare", c.err().message);
    for (const auto& w : c->warnings)
        std::cerr << "bench-report compare: warning: " << w << "\n";
    std::cout << (format == "json" ? report::compare_json(*c) : report::compare_markdown(*c));
    return c->count(report::change::regressed) > 0 ? apps::exit_run_errors : apps::exit_ok;
}

int run_merge(report::merge_options mo, const std::vector<std::string>& logs)
{
    mo.logs.assign(logs.begin(), logs.end());
    auto m = report::merge_logs(mo);
    if (!m)
        return apps::usage_error("bench-report merge", m.err().message);
    std::cout << report::format_merge(*m);
    return apps::exit_ok;
}

/// Every suite on disk, with its scenarios' files: the README headline always shows all of them, --suite only picks
/// the pages.
execbench::result<std::vector<report::suite_data>> read_suites(const std::vector<std::filesystem::path>& dirs)
{
    std::vector<report::suite_data> data;
    auto scenario_dir = execbench::load::find_scenario_dir(std::nullopt);
    for (const auto& d : dirs) {
        auto s = report::read_suite(d);
        if (!s)
            return s.err();
        if (scenario_dir)
            report::add_scenario_files(*s, *scenario_dir);
        data.push_back(std::move(*s));
    }
    return data;
}

/// What is wrong with --suite when it names a suite without results, naming the ones there are.
std::optional<std::string> unknown_suite(const page_options& o, const std::vector<report::suite_data>& data)
{
    for (const auto& name : o.suites)
        if (std::none_of(data.begin(), data.end(), [&](const auto& s) { return s.name == name; })) {
            std::string known;
            for (const auto& s : data)
                known += (known.empty() ? "" : ", ") + s.name;
            return "--suite: no results for '" + name + "' under " + o.results + " (there are: " + known + ")";
        }
    return std::nullopt;
}

std::filesystem::path absolute_path(const std::filesystem::path& p)
{
    std::error_code ec;
    return std::filesystem::absolute(p, ec).lexically_normal();
}

/// True when `a` and `b` name the same folder, through symlinks and a trailing slash ("results/" is "results").
bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b)
{
    auto resolved = [](const std::filesystem::path& p) {
        std::error_code ec;
        auto c = std::filesystem::weakly_canonical(absolute_path(p), ec);
        auto r = ec ? absolute_path(p) : c.lexically_normal();
        return r.filename().empty() ? r.parent_path() : r;
    };
    return resolved(a) == resolved(b);
}

/// Where the pages go and the links as a reader follows them: from the README to the pages, from the pages to the
/// raw data and the methodology.
report::report_paths page_paths(const page_options& o, const std::vector<std::filesystem::path>& dirs)
{
    auto link = [](const std::filesystem::path& to, const std::filesystem::path& from) {
        auto r = to.lexically_relative(from).generic_string();
        return r.empty() ? std::string{"."} : r;
    };
    auto readme_dir = absolute_path(o.readme).parent_path();
    report::report_paths paths;
    paths.docs_dir = o.docs;
    paths.results_label = o.results;
    paths.docs_link = link(absolute_path(o.docs), readme_dir);
    const bool one_folder = dirs.size() == 1 && dirs.front() == std::filesystem::path(o.results);
    paths.results_link =
        link(one_folder ? absolute_path(o.results).parent_path() : absolute_path(o.results), absolute_path(o.docs));
    paths.methodology_link = link(readme_dir / "docs" / "methodology.md", absolute_path(o.docs));
    paths.headline_suites = execbench::split_list(o.headline);
    return paths;
}

/// The README whose blocks are written, or an empty path for none. The README's headline is the repository's: a
/// report of other results (a scratch run, pages into another folder) leaves it alone unless --readme names it.
execbench::result<std::filesystem::path> readme_to_write(const page_options& o)
{
    auto readme_dir = absolute_path(o.readme).parent_path();
    const bool own_results =
        same_folder(o.results, readme_dir / "results") && same_folder(o.docs, readme_dir / "docs" / "results");
    if (o.no_readme || !(o.readme_given || own_results))
        return std::filesystem::path{};
    return report::readme_target(o.readme);
}

std::string readme_left_alone(const page_options& o)
{
    if (o.no_readme)
        return "README left alone (--no-readme)";
    return "no headline written: " + o.results + " and " + o.docs + " are not the repository's results/ and " +
           "docs/results beside " + o.readme + ", so " + o.readme + " was left alone (--readme FILE writes one)";
}

int check_pages(const report::report_output& out, const std::filesystem::path& readme_file, const page_options& o,
                const std::vector<report::suite_data>& data)
{
    auto stale = report::stale_files(out, readme_file);
    for (const auto& s : stale)
        std::printf("stale: %s\n", s.c_str());
    if (!stale.empty()) {
        std::printf("bench-report --check: %zu generated file(s) out of date; run bench-report\n", stale.size());
        return apps::exit_run_errors;
    }
    if (!readme_file.empty()) {
        // A figure the README quotes by hand must say when it comes from other code or another machine.
        std::vector<const report::suite_data*> suites;
        for (const auto& s : data)
            suites.push_back(&s);
        auto text = execbench::read_file(readme_file);
        if (!text) {
            std::cerr << "bench-report: " << text.err().message << "\n";
            return apps::exit_usage;
        }
        auto unlabelled = report::unlabelled_citations(*text, suites);
        for (const auto& u : unlabelled)
            std::printf("unlabelled: %s\n", u.c_str());
        if (!unlabelled.empty()) {
            std::printf("bench-report --check: %zu README line(s) cite results of another provenance without †\n",
                        unlabelled.size());
            return apps::exit_run_errors;
        }
    }
    std::printf("bench-report --check: %zu page(s), %zu chart(s)%s up to date%s\n", out.files.size(),
                out.charts.size(), readme_file.empty() ? " are" : " and the README headline are",
                readme_file.empty() ? ("; " + readme_left_alone(o)).c_str() : "");
    return apps::exit_ok;
}

int write_pages(const report::report_output& out, const std::filesystem::path& readme_file, const page_options& o)
{
    std::filesystem::path script;
    if (!o.no_charts) {
        script = o.chart_script ? std::filesystem::path(*o.chart_script) : find_chart_script();
        if (script.empty())
            return usage("cannot find charts.py (src/report/ in the source tree, share/execbench/ when installed); "
                         "give --charts-script or --no-charts");
    }
    if (auto w = report::write_report(out, readme_file, script, o.no_charts ? std::string{} : o.python); !w) {
        std::cerr << "bench-report: " << w.err().message << "\n";
        return apps::exit_usage;
    }
    std::printf("bench-report: %zu page(s) and %zu chart(s) in %s (open index.html there), %s\n", out.files.size(),
                o.no_charts ? std::size_t{0} : out.charts.size(), o.docs.c_str(),
                readme_file.empty() ? readme_left_alone(o).c_str() : ("headline in " + readme_file.string()).c_str());
    return apps::exit_ok;
}

/// The pages of results other than the repository's go beside them, in <results>/pages, unless --docs says where:
/// the default docs/results holds the committed pages, which a scratch run would overwrite.
page_options with_docs_beside_foreign_results(page_options o)
{
    auto readme_dir = absolute_path(o.readme).parent_path();
    if (!o.docs_given && !same_folder(o.results, readme_dir / "results"))
        o.docs = (std::filesystem::path(o.results) / "pages").string();
    return o;
}

int run_pages(const page_options& given)
{
    const auto o = with_docs_beside_foreign_results(given);
    auto dirs = report::suite_dirs(o.results);
    if (dirs.empty())
        return usage("no suite results under " + o.results +
                     " (expected <suite>/<suite>.csv, -runs.csv or -capacity.csv, or one results folder); nothing "
                     "written");
    auto data = read_suites(dirs);
    if (!data) {
        std::cerr << "bench-report: " << data.err().message << "\n";
        return apps::exit_usage;
    }
    if (auto wrong = unknown_suite(o, *data))
        return usage(*wrong);
    auto out = report::build_report(*data, page_paths(o, dirs), o.suites);
    auto readme_file = readme_to_write(o);
    if (!readme_file) {
        std::cerr << "bench-report: " << readme_file.err().message << "; nothing written\n";
        return apps::exit_usage;
    }
    return o.check ? check_pages(out, *readme_file, o, *data) : write_pages(out, *readme_file, o);
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"bench-report: regenerates the results pages, charts and README headline from results/"};
    app.set_version_flag("--version", execbench::version_string());
    page_options o;
    for (const auto& h : report::report_paths{}.headline_suites)  // the library's default list, spelled once there
        o.headline += (o.headline.empty() ? "" : ",") + h;

    app.add_option("--results", o.results, "Results root holding one folder per suite, or one results folder")
        ->capture_default_str();
    app.add_option("--docs", o.docs,
                   "Where the pages go: <suite>.md, <suite>.html, index.html, and the charts in <suite>/ (SVG); "
                   "default docs/results for the repository's results/, <results>/pages for any other --results")
        ->capture_default_str();
    auto* readme_option =
        app.add_option("--readme", o.readme,
                       "README whose headline block is replaced (through a symlink; anything but a regular file is "
                       "refused)")
            ->capture_default_str();
    app.add_flag("--no-readme", o.no_readme, "Leave every README alone: write (or --check) the pages and charts only")
        ->excludes(readme_option);
    app.add_option("--suite", o.suites,
                   "Regenerate only these suites' pages (repeatable; default: every suite under --results); the "
                   "README headline is always built from every suite");
    app.add_option("--headline-suites", o.headline,
                   "Suites in the README headline, comma-separated (every suite still gets its pages); none of "
                   "them on disk: every suite")
        ->capture_default_str();
    app.add_flag("--check", o.check, "Write nothing; exit 1 when a generated file is missing or out of date");
    app.add_flag("--no-charts", o.no_charts, "Do not draw charts (pages and README only)");
    app.add_option("--charts-script", o.chart_script,
                   "The matplotlib chart script (default: src/report/charts.py of the source tree, else the "
                   "installed share/execbench/charts.py)");
    app.add_option("--python", o.python, "Python interpreter with matplotlib")->capture_default_str();
    auto* compare = app.add_subcommand("compare", "Compare two result folders: ratio of medians NEW / OLD per "
                                                  "scenario × arm with a 95 % bootstrap interval; exit 1 when "
                                                  "something regressed, 2 on bad input");
    report::compare_options co;
    std::string format = "md";
    compare
        ->add_option("OLD", co.old_dir,
                     "Baseline: a results folder of any name (what bench-suite --out or bench-load --out wrote) or a "
                     "results root")
        ->required();
    compare->add_option("NEW", co.new_dir, "Candidate: a results folder or a results root")->required();
    compare->add_option("--old-run", co.old_run, "In OLD, only runs whose run id or git revision starts with this");
    compare->add_option("--new-run", co.new_run, "In NEW, only runs whose run id or git revision starts with this");
    compare
        ->add_option("--threshold", co.threshold_percent,
                     "A change counts (regressed or improved) only when its whole 95 % interval is more than "
                     "this many percent away from no change")
        ->capture_default_str();
    compare->add_option("--format", format, "Output: a markdown table (md) or one JSON document (json)")
        ->check(CLI::IsMember({"md", "json"}))
        ->capture_default_str();
    compare->add_flag("--allow-scale-mismatch", co.allow_scale_mismatch, "Compare runs made at different load scales");
    auto* merge = app.add_subcommand("merge", "Exact percentiles from HdrHistogram interval logs (bench-load --hlog): "
                                              "every interval inside the window, across every log, added up per tag");
    report::merge_options mo;
    std::vector<std::string> merge_logs;
    merge->add_option("LOGS", merge_logs, "Interval logs (.hlog) to merge: trials, processes, hosts")->required();
    merge->add_option("--from", mo.from_seconds, "Window start: seconds after the earliest log's StartTime")
        ->check(CLI::NonNegativeNumber);
    merge->add_option("--to", mo.to_seconds, "Window end, likewise (intervals must end by then)")
        ->check(CLI::NonNegativeNumber);
    merge->add_option("--tag", mo.tag, "Only this tag, e.g. fiber/latency (default: every tag, one row each)");
    if (auto code = apps::parse_command_line(app, "bench-report", argc, argv))
        return *code;
    o.readme_given = readme_option->count() > 0;
    o.docs_given = app.count("--docs") > 0;

    if (*compare)
        return run_compare(co, format);
    if (*merge)
        return run_merge(mo, merge_logs);
    return run_pages(o);
}
