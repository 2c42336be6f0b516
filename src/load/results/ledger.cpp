#include "execbench/load/results/ledger.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/results.hpp"

#include <cstdlib>

namespace execbench::load {

namespace {

using detail::append_lines;
using detail::csv_field;

const char* const ledger_header = "suite,scenario,model,arm,status,run_id,started_at,seconds,message,schema";

}  // namespace

std::string_view to_string(run_status s) noexcept
{
    switch (s) {
    case run_status::ok: return "ok";
    case run_status::behind: return "behind";
    case run_status::errors: return "errors";
    case run_status::failed: return "failed";
    case run_status::not_run: return "not_run";
    case run_status::generator_bound: return "generator-bound";
    case run_status::stopped: return "stopped";
    }
    return "failed";
}

std::optional<run_status> parse_run_status(std::string_view text) noexcept
{
    for (auto s : {run_status::ok, run_status::behind, run_status::errors, run_status::failed, run_status::not_run,
                   run_status::generator_bound, run_status::stopped})
        if (to_string(s) == text)
            return s;
    return std::nullopt;
}

run_status status_of(const run_record& r) noexcept
{
    if (r.trials.empty())
        return run_status::failed;
    // Stopped says what ended the run, before anything its trials showed; its message still lists request errors
    // and generator-bound trials.
    if (r.partial)
        return run_status::stopped;
    // A server that refused every request is the run's story even when reconnecting after each refusal kept the
    // generator busy.
    if (r.refused_every_request())
        return run_status::errors;
    // Errors and unsent requests of such a run are the generator's too; the message still lists them.
    if (r.generator_bound_trials() == r.trials.size())
        return run_status::generator_bound;
    if (r.had_errors())
        return run_status::errors;
    return r.had_unsent() ? run_status::behind : run_status::ok;
}

std::vector<ledger_figure> ledger_figures(const run_record& r)
{
    std::vector<ledger_figure> out;
    for (const auto& m : r.summary) {
        bool error_column = metric::is_errors_column(m.name) || m.name == metric::requests_unsent;
        if (!error_column || m.spread.max <= 0)
            continue;
        ledger_figure f{m.name, m.spread.median, std::nullopt};
        if (m.spread.max != m.spread.median)
            f.max = m.spread.max;
        out.push_back(std::move(f));
    }
    return out;
}

std::string format_figures(const std::vector<ledger_figure>& figures)
{
    std::string out;
    for (const auto& f : figures) {
        out += (out.empty() ? "" : ", ") + f.name + "=" + fixed(f.median, 0);
        if (f.max)
            out += " (max " + fixed(*f.max, 0) + ")";
    }
    return out;
}

namespace {

/// The digits `text` is made of, as a number; nothing when it is empty or holds anything else.
std::optional<double> whole_number(std::string_view text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    return std::strtod(std::string(text).c_str(), nullptr);
}

/// `name=N` or `name=N (max M)`, as format_figures writes one figure.
std::optional<ledger_figure> parse_figure(std::string_view part)
{
    auto eq = part.find('=');
    if (eq == std::string_view::npos)
        return std::nullopt;
    ledger_figure f;
    f.name = std::string(part.substr(0, eq));
    bool known = f.name == metric::requests_unsent ||
                 (f.name.size() > metric::errors_prefix.size() && metric::is_errors_column(f.name) &&
                  f.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string::npos);
    if (!known)
        return std::nullopt;
    auto rest = part.substr(eq + 1);
    constexpr std::string_view max_open = " (max ";
    auto paren = rest.find(max_open);
    auto median = whole_number(rest.substr(0, paren));
    if (!median)
        return std::nullopt;
    f.median = *median;
    if (paren != std::string_view::npos) {
        auto inner = rest.substr(paren + max_open.size());
        if (inner.empty() || inner.back() != ')')
            return std::nullopt;
        f.max = whole_number(inner.substr(0, inner.size() - 1));
        if (!f.max)
            return std::nullopt;
    }
    return f;
}

}  // namespace

std::vector<message_part> parse_message(std::string_view message)
{
    std::vector<message_part> parts;
    std::string part;
    auto flush = [&](std::string separator) {
        parts.push_back({part, parse_figure(part), std::move(separator)});
        part.clear();
    };
    for (std::size_t i = 0; i < message.size(); ++i) {
        if ((message[i] == ',' || message[i] == ';') && i + 1 < message.size() && message[i + 1] == ' ') {
            flush(std::string(message.substr(i, 2)));
            ++i;
        } else {
            part += message[i];
        }
    }
    flush("");
    return parts;
}

result<void> append_ledger(const std::filesystem::path& file, const suite_entry& e)
{
    std::string line = csv_field(e.suite) + "," + csv_field(e.scenario) + "," + csv_field(e.model) + "," +
                       csv_field(e.arm_name()) + "," + std::string(to_string(e.status)) + "," + csv_field(e.run_id) +
                       "," + csv_field(e.started_at) + "," + fixed(e.seconds, 1) + "," + csv_field(e.message) + "," +
                       std::to_string(schema_version);
    return append_lines(file, ledger_header, {line});
}

result<std::vector<suite_entry>> read_ledger(const std::filesystem::path& file)
{
    auto t = read_csv(file);
    if (!t)
        return t.err();
    for (std::string_view c : {"suite", "scenario", "model", "status", "run_id", "started_at", "seconds", "message"})
        if (t->column(c) < 0)
            return fail(file.string() + ": missing column " + std::string(c));
    auto rows = current_rows(*t, row_kind::ledger, file);
    if (!rows)
        return rows.err();
    std::vector<suite_entry> out;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const auto& row = (*rows)[i];
        suite_entry e;
        e.suite = cell_of(row, "suite");
        e.scenario = cell_of(row, column::scenario);
        e.model = cell_of(row, column::model);
        auto status = cell_of(row, "status");
        auto st = parse_run_status(status);
        if (!st)
            return fail(file.string() + ": line " + std::to_string(i + 2) + ": status '" + status +
                        "' is not ok, behind, errors, failed, not_run, generator-bound or stopped");
        e.status = *st;
        e.run_id = cell_of(row, column::run_id);
        e.started_at = cell_of(row, column::started_at);
        e.seconds = std::atof(cell_of(row, "seconds").c_str());
        e.message = cell_of(row, "message");
        e.arm = cell_of(row, column::arm);
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace execbench::load
