#include "execbench/load/results/results.hpp"

#include "execbench/core/file.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/upgrade.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/scenario/scale.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace execbench::load {

namespace {

/// Spread columns are written for these metrics (min and max across trials beside the median).
const std::vector<std::string_view>& spread_metrics()
{
    static const std::vector<std::string_view> names{metric::wall_millis,        metric::requests_per_second,
                                                     metric::latency_millis_p50, metric::latency_millis_p99,
                                                     metric::server_rss_mb_max,  metric::server_cpu_percent_avg,
                                                     metric::requests_error};
    return names;
}

/// The names as the strings a CSV row is made of.
std::vector<std::string> names_of(std::initializer_list<std::string_view> names)
{
    return std::vector<std::string>(names.begin(), names.end());
}

std::string number(double v)
{
    if (v == static_cast<double>(static_cast<long long>(v)) && std::abs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

std::string join_row(const std::vector<std::string>& fields)
{
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i)
            out += ',';
        out += detail::csv_field(fields[i]);
    }
    return out + "\n";
}

/// A run's settings and provenance as (column, value), in the order x.csv holds them after the metrics; the columns
/// alone are those of an empty result.
std::vector<std::pair<std::string_view, std::string>> context_fields(const run_record& r)
{
    const auto& s = r.scenario_used;
    const auto& l = s.load;
    std::string think =
        l.think_max.count() > 0
            ? (l.think_min == l.think_max ? format_duration(l.think_min)
                                          : format_duration(l.think_min) + ".." + format_duration(l.think_max))
            : "0s";
    std::string health = r.server.health_json;
    health.erase(std::remove(health.begin(), health.end(), '\n'), health.end());
    return {{column::run_id, r.run_id},
            {column::started_at, r.started_at},
            {column::url, r.url},
            {column::tls, r.url.starts_with("https://") ? "1" : "0"},
            {column::protocol, std::string(to_string(s.protocol))},
            {column::streams, std::to_string(s.streams)},
            {column::loadgen_threads, std::to_string(r.threads)},
            {column::scale, number(s.scale.factor)},
            {column::time_scale, number(s.time_scale.factor)},
            {column::shape, std::string(to_string(l.kind))},
            {column::connections, std::to_string(connections_of(l))},
            {column::requests, std::to_string(l.requests)},
            {column::rate, number(l.rate)},
            {column::duration, l.kind == shape::burst ? "" : format_duration(l.length)},
            {column::think, think},
            {column::warmup, format_duration(s.warmup)},
            {column::timeout, format_duration(s.timeout)},
            {column::server_sampling, r.server.sampling},
            {column::server_health, health},
            {column::execbench_version, r.context.execbench_version},
            {column::git_revision, r.context.git_revision},
            {column::build_type, r.context.build_type},
            {column::compiler, r.context.compiler},
            {column::cpu_model, r.context.cpu_model},
            {column::cpu_count, std::to_string(r.context.cpu_count)},
            {column::kernel, r.context.kernel}};
}

std::string timeline_header()
{
    return join_row(names_of({column::run_id, column::scenario, column::model, column::arm, column::trial,
                              column::second, metric::requests_ok, metric::requests_error,
                              metric::latency_millis_p50, metric::latency_millis_p90, metric::latency_millis_p99,
                              metric::latency_millis_max, metric::requests_unsent, column::target_rate, column::users,
                              column::users_target, column::connections_open, metric::loadgen_cpu_percent,
                              column::requests_in_flight, column::schema}));
}

}  // namespace

result<void> check_appendable(const output_paths& paths)
{
    for (const auto& [file, header] : {std::pair{paths.summary, join_row(summary_columns())},
                                       std::pair{paths.trials, join_row(trial_columns())},
                                       std::pair{paths.timeline, timeline_header()}})
        if (auto ok = detail::fit_columns(file, header); !ok)
            return ok.err();
    return {};
}

std::vector<std::string> summary_columns()
{
    auto cols = names_of({column::scenario, column::model, column::arm, column::trials});
    for (const auto& [name, v] : trial_metrics(trial_result{}))
        cols.push_back(name);
    for (auto name : spread_metrics()) {
        cols.push_back(metric::trial_min(name));
        cols.push_back(metric::trial_max(name));
    }
    auto status = names_of({column::noisy, column::noisy_metrics, column::partial, column::generator_bound_trials});
    cols.insert(cols.end(), status.begin(), status.end());
    for (const auto& [name, v] : context_fields(run_record{}))
        cols.emplace_back(name);
    cols.emplace_back(column::schema);
    return cols;
}

std::vector<std::string> trial_columns()
{
    auto cols = names_of({column::run_id, column::scenario, column::model, column::arm, column::trial, column::stopped,
                          column::generator_bound});
    for (const auto& [name, v] : trial_metrics(trial_result{}))
        cols.push_back(name);
    auto identity = names_of({column::git_revision, column::started_at, column::scale, column::schema});
    cols.insert(cols.end(), identity.begin(), identity.end());
    return cols;
}

namespace {

/// The summary CSV: one row of medians, spreads and labels per run.
result<void> write_summary(const run_record& r, const std::filesystem::path& file)
{
    const auto& s = r.scenario_used;
    std::ofstream out;
    if (auto ok = detail::open_rows(file, join_row(summary_columns()), out); !ok)
        return ok;
    std::vector<std::string> row{s.name, r.server.model, r.arm_name(), std::to_string(r.trials.size())};
    if (r.summary.empty()) {
        for (std::size_t i = 0; i < trial_metrics(trial_result{}).size(); ++i)
            row.emplace_back("");
    }
    for (const auto& m : r.summary)
        row.push_back(number(m.spread.median));
    for (const auto& name : spread_metrics()) {
        auto it = std::find_if(r.summary.begin(), r.summary.end(), [&](const auto& m) { return m.name == name; });
        row.push_back(it == r.summary.end() ? "" : number(it->spread.min));
        row.push_back(it == r.summary.end() ? "" : number(it->spread.max));
    }
    std::string noisy_names;
    for (const auto& m : r.summary)
        if (m.noisy)
            noisy_names += (noisy_names.empty() ? "" : ";") + m.name;
    row.push_back(r.noisy() ? "1" : "0");
    row.push_back(noisy_names);
    row.push_back(r.partial ? "1" : "0");
    row.push_back(std::to_string(r.generator_bound_trials()));
    for (auto& [name, v] : context_fields(r))
        row.push_back(std::move(v));
    row.push_back(std::to_string(schema_version));
    out << join_row(row);
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

/// The trials CSV: one row per trial, every metric.
result<void> write_trials(const run_record& r, const std::filesystem::path& file)
{
    const auto& s = r.scenario_used;
    std::ofstream out;
    if (auto ok = detail::open_rows(file, join_row(trial_columns()), out); !ok)
        return ok;
    for (const auto& t : r.trials) {
        std::vector<std::string> row{r.run_id,
                                     s.name,
                                     r.server.model,
                                     r.arm_name(),
                                     std::to_string(t.index),
                                     t.measured.stopped ? "1" : "0",
                                     t.generator_bound ? "1" : "0"};
        for (const auto& [name, v] : trial_metrics(t))
            row.push_back(number(v));
        row.push_back(r.context.git_revision);
        row.push_back(r.started_at);
        row.push_back(number(s.scale.factor));
        row.push_back(std::to_string(schema_version));
        out << join_row(row);
    }
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

/// The histograms file: a context comment, then one line per trial and series.
result<void> write_histograms(const run_record& r, const std::filesystem::path& file)
{
    const auto& s = r.scenario_used;
    std::error_code ec;
    bool fresh = !std::filesystem::exists(file, ec);
    std::ofstream out(file, std::ios::app | std::ios::binary);
    if (!out)
        return fail(file.string() + ": cannot be opened for writing");
    if (fresh)
        out << "# execbench histograms v2: "
               "run_id<TAB>scenario<TAB>model<TAB>arm<TAB>trial<TAB>series<TAB>histogram "
               "(microseconds; stats::histogram::serialize)\n";
    out << "# context " << to_json(context_of(r)) << "\n";
    for (const auto& t : r.trials) {
        auto line = [&](const char* series, const stats::histogram& h) {
            out << r.run_id << '\t' << s.name << '\t' << r.server.model << '\t' << r.arm_name() << '\t' << t.index
                << '\t' << series << '\t' << h.serialize() << '\n';
        };
        line("latency", t.measured.foreground.latency);
        line("service", t.measured.foreground.service);
        if (t.measured.background)
            line("background_latency", t.measured.background->latency);
    }
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

/// The timeline CSV: one row per trial and second.
result<void> write_timeline(const run_record& r, const std::filesystem::path& file)
{
    const auto& s = r.scenario_used;
    std::ofstream out;
    if (auto ok = detail::open_rows(file, timeline_header(), out); !ok)
        return ok;
    // A figure the shape does not have is left empty, not 0, so a chart leaves it out rather than draws a zero.
    const auto& load = s.load;
    bool open = load.kind == shape::open, ramp = load.kind == shape::ramp;
    auto length_s = std::chrono::duration<double>(load.length).count();
    for (const auto& t : r.trials) {
        const auto& tl = t.measured.foreground.timeline;
        const auto& latencies = t.measured.foreground.latency_seconds;
        const auto& cpu = t.measured.loadgen_cpu_percent;
        for (std::size_t sec = 0; sec < tl.size(); ++sec) {
            const auto& b = tl[sec];
            auto latency = latencies.at(sec);
            auto end_s = std::min(double(sec + 1), length_s);
            bool scheduled = double(sec) < length_s;
            std::string users_target;
            if (ramp && scheduled)
                users_target = number(std::round(ramp_users_at(
                    load.stages, std::chrono::duration_cast<duration>(std::chrono::duration<double>(end_s)))));
            out << join_row({r.run_id, s.name, r.server.model, r.arm_name(), std::to_string(t.index),
                             std::to_string(sec), std::to_string(b.ok), std::to_string(b.errors),
                             number(double(latency.value_at_percentile(50)) / 1000.0),
                             number(double(latency.value_at_percentile(90)) / 1000.0),
                             number(double(latency.value_at_percentile(99)) / 1000.0),
                             number(double(latency.max()) / 1000.0), open ? std::to_string(b.unsent) : "",
                             open && scheduled ? number(load.rate) : "",
                             ramp && b.sampled ? std::to_string(b.users) : "", users_target,
                             b.sampled ? std::to_string(b.connections) : "",
                             sec < cpu.size() ? execbench::fixed(cpu[sec], 1) : "",
                             b.sampled ? std::to_string(b.in_flight) : "", std::to_string(schema_version)});
        }
    }
    if (!out)
        return fail(file.string() + ": write failed");
    return {};
}

}  // namespace

result<void> write_results(const run_record& r, const output_paths& paths, bool with_context)
{
    // In this order, stopping at the first that fails: the summary row is what a reader looks for first.
    if (auto w = write_summary(r, paths.summary); !w)
        return w;
    if (auto w = write_trials(r, paths.trials); !w)
        return w;
    if (auto w = write_histograms(r, paths.histograms); !w)
        return w;
    if (auto w = write_timeline(r, paths.timeline); !w)
        return w;
    if (with_context)
        return append_context(r, paths);
    return {};
}

result<void> append_context(const run_record& r, const output_paths& paths)
{
    {
        std::error_code ec;
        if (paths.context.has_parent_path())
            std::filesystem::create_directories(paths.context.parent_path(), ec);
        std::ofstream out(paths.context, std::ios::app | std::ios::binary);
        out << to_json(context_of(r)) << '\n';
        if (!out)
            return fail(paths.context.string() + ": write failed");
    }
    return {};
}

std::string cell_of(const summary_row& row, std::string_view column)
{
    auto it = row.find(column);
    return it == row.end() ? std::string{} : it->second;
}

double number_of(std::string_view cell)
{
    if (cell.empty())
        return 0;
    std::string text(cell);
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    return end == text.c_str() ? 0 : v;
}

result<std::vector<summary_row>> read_summary(const std::filesystem::path& file)
{
    return read_current_rows(file, row_kind::summary);
}

result<std::vector<trial_row>> read_trial_rows(const std::filesystem::path& file)
{
    auto rows = read_current_rows(file, row_kind::trial);
    if (!rows)
        return rows.err();
    std::vector<trial_row> out;
    for (const auto& row : *rows) {
        auto& r = out.emplace_back();
        r.run_id = cell_of(row, column::run_id);
        for (const auto& [name, text] : row)
            if (!text.empty() && name != column::schema)
                r.figures[name] = number_of(text);
    }
    return out;
}

result<std::vector<second_row>> read_second_rows(const std::filesystem::path& file, row_kind kind,
                                                 const second_row_filter& wanted)
{
    auto t = read_csv(file);
    if (!t)
        return t.err();
    auto id_col = t->column(column::run_id);
    auto trial_col = t->column(column::trial);
    if (id_col < 0 || trial_col < 0)
        return fail(file.string() + ": missing run_id or trial column");
    // Only the rows wanted are converted and upgraded: a timeline holds every second of every trial ever appended.
    auto rows = current_rows(*t, kind, file, [&](const csv_table&, const std::vector<std::string>& cells) {
        return !wanted ||
               wanted(cells[std::size_t(id_col)], static_cast<unsigned>(number_of(cells[std::size_t(trial_col)])));
    });
    if (!rows)
        return rows.err();
    std::vector<second_row> out;
    for (const auto& row : *rows) {
        auto& r = out.emplace_back();
        r.run_id = cell_of(row, column::run_id);
        r.trial = static_cast<unsigned>(number_of(cell_of(row, column::trial)));
        for (const auto& [name, text] : row)
            if (!text.empty() && name != column::run_id && name != column::scenario && name != column::model &&
                name != column::arm && name != column::schema)
                r.figures[name] = number_of(text);
    }
    return out;
}

result<std::vector<histogram_record>> read_histograms(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return fail(file.string() + ": cannot be read");
    std::vector<histogram_record> out;
    std::string line;
    std::size_t number_of_line = 0;
    // A run's lines follow its `# context` line, whose schema they were written in.
    unsigned version = unversioned_schema;
    constexpr std::string_view context_comment = "# context ";
    while (std::getline(in, line)) {
        ++number_of_line;
        auto where = file.string() + ":" + std::to_string(number_of_line);
        if (line.starts_with(context_comment)) {
            auto v = context_schema(std::string_view(line).substr(context_comment.size()), where);
            if (!v)
                return v.err();
            version = *v;
        }
        if (line.empty() || line[0] == '#')
            continue;
        // Lines carry the arm after the model, but those written before arms. Histograms hold no tabs.
        auto tabs = std::count(line.begin(), line.end(), '\t');
        bool with_arm = tabs == 6;
        if (tabs != 6 && (tabs != 5 || version > unversioned_schema))
            return fail(where + (version > unversioned_schema ? ": expected 7 tab-separated fields"
                                                              : ": expected 6 or 7 tab-separated fields"));
        std::vector<std::string> f;
        std::size_t start = 0;
        for (int i = 0; i < (with_arm ? 6 : 5); ++i) {
            auto tab = line.find('\t', start);
            f.push_back(line.substr(start, tab - start));
            start = tab + 1;
        }
        record_row row{{std::string(column::run_id), f[0]},
                       {std::string(column::scenario), f[1]},
                       {std::string(column::model), f[2]}};
        if (with_arm)
            row[std::string(column::arm)] = f[3];
        upgrade(row_kind::histogram, row, version);
        auto h = stats::histogram::parse(std::string_view(line).substr(start));
        if (!h)
            return fail(where + ": " + h.err().message);
        histogram_record rec{f[0], f[1], f[2], cell_of(row, column::arm), 0, f[with_arm ? 5 : 4], std::move(h.value())};
        try {
            rec.trial = static_cast<unsigned>(std::stoul(f[with_arm ? 4 : 3]));
        } catch (...) {
            return fail(where + ": trial is not a number");
        }
        out.push_back(std::move(rec));
    }
    return out;
}

}  // namespace execbench::load
