#include "execbench/load/results/capacity_results.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/machine_record.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/results.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <type_traits>

namespace execbench::load {

namespace {

/// The steps file's header: the metrics keep their results-file names (load/metrics/metrics.hpp).
std::string step_header()
{
    std::string h = "run_id,scenario,arm,model,step,phase,offered_rps,achieved_rps,connections";
    for (auto m :
         {metric::latency_millis_p50, metric::latency_millis_p90, metric::latency_millis_p99, metric::requests_error,
          metric::requests_unsent, metric::server_cpu_percent_avg, metric::server_rss_mb_max})
        h.append(",").append(m);
    return h + ",met_slo,generator_bound,note,schema";
}
constexpr const char* summary_header = "run_id,scenario,arm,model,outcome,capacity_rps,capacity_rps_low,"
                                       "capacity_rps_high,slo,connections,estimates,steps,stop_reason,pipeline,schema";

std::string estimates_text(const std::vector<double>& e)
{
    std::string out;
    for (auto v : e)
        out += (out.empty() ? "" : " ") + execbench::fixed(v, 1);
    return out;
}

/// A row's cells by column name, failing on a column it lacks.
class row_reader {
public:
    row_reader(const record_row& row, std::string where) : row_(row), where_(std::move(where)) {}
    result<std::string> text(std::string_view column) const
    {
        auto it = row_.find(column);
        if (it == row_.end())
            return fail(where_ + ": no column " + std::string(column));
        return it->second;
    }
    result<double> number(std::string_view column) const
    {
        auto s = text(column);
        if (!s)
            return s.err();
        double v = 0;
        auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
        if (ec != std::errc{} || end != s->data() + s->size())
            return fail(where_ + ": " + std::string(column) + " '" + *s + "' is not a number");
        return v;
    }

private:
    const record_row& row_;
    std::string where_;
};

result<capacity_step> read_step(const row_reader& in)
{
    capacity_step s;
    auto n = [&](std::string_view c, auto& into) -> result<void> {
        auto v = in.number(c);
        if (!v)
            return v.err();
        into = static_cast<std::remove_reference_t<decltype(into)>>(*v);
        return {};
    };
    for (auto r :
         {n("step", s.index), n("offered_rps", s.offered_rps), n("achieved_rps", s.achieved_rps),
          n("connections", s.connections), n(metric::latency_millis_p50, s.p50_millis),
          n(metric::latency_millis_p90, s.p90_millis), n(metric::latency_millis_p99, s.p99_millis),
          n(metric::requests_error, s.errors), n(metric::requests_unsent, s.unsent),
          n(metric::server_cpu_percent_avg, s.server_cpu_percent), n(metric::server_rss_mb_max, s.server_rss_mb)})
        if (!r)
            return r.err();
    auto flag = [&](std::string_view c, bool& into) -> result<void> {
        auto v = in.text(c);
        if (!v)
            return v.err();
        into = *v == "true";
        return {};
    };
    if (auto r = flag("met_slo", s.met_slo); !r)
        return r.err();
    if (auto r = flag("generator_bound", s.generator_bound); !r)
        return r.err();
    auto phase = in.text("phase"), note = in.text("note");
    if (!phase || !note)
        return fail((phase ? note : phase).err().message);
    s.phase = *phase;
    s.note = *note;
    return s;
}

}  // namespace

result<void> write_capacity(const capacity_record& r, const capacity_paths& paths)
{
    using detail::csv_field;
    auto labels =
        csv_field(r.run_id) + "," + csv_field(r.scenario) + "," + csv_field(r.arm) + "," + csv_field(r.model) + ",";
    std::vector<std::string> steps;
    for (const auto& s : r.result.steps)
        steps.push_back(labels + std::to_string(s.index) + "," + csv_field(s.phase) + "," + fixed(s.offered_rps, 1) +
                        "," + fixed(s.achieved_rps, 1) + "," + std::to_string(s.connections) + "," +
                        fixed(s.p50_millis, 3) + "," + fixed(s.p90_millis, 3) + "," + fixed(s.p99_millis, 3) + "," +
                        std::to_string(s.errors) + "," + std::to_string(s.unsent) + "," +
                        fixed(s.server_cpu_percent, 1) + "," + fixed(s.server_rss_mb, 1) + "," +
                        (s.met_slo ? "true" : "false") + "," + (s.generator_bound ? "true" : "false") + "," +
                        csv_field(s.note) + "," + std::to_string(schema_version));
    if (auto w = detail::append_lines(paths.steps, step_header(), steps); !w)
        return w;
    const auto& c = r.result;
    bool measured = c.what == capacity_result::outcome::measured;
    auto line = labels + std::string(to_string(c.what)) + "," + fixed(c.capacity_rps, 1) + "," +
                (measured ? fixed(c.low_rps, 1) : "") + "," + (measured ? fixed(c.high_rps, 1) : "") + "," +
                csv_field(r.slo) + "," + csv_field(r.connections) + "," + estimates_text(c.estimates) + "," +
                std::to_string(c.steps.size()) + "," + csv_field(c.stop_reason) + "," + std::to_string(c.pipeline) +
                "," + std::to_string(schema_version);
    return detail::append_lines(paths.summary, summary_header, {line});
}

result<std::vector<capacity_record>> read_capacity(const capacity_paths& paths)
{
    auto summary = read_current_rows(paths.summary, row_kind::capacity);
    if (!summary)
        return summary.err();
    auto steps = read_current_rows(paths.steps, row_kind::capacity_step);
    if (!steps)
        return steps.err();
    std::map<std::string, std::vector<capacity_step>> by_run;
    for (std::size_t i = 0; i < steps->size(); ++i) {
        row_reader in((*steps)[i], paths.steps.string() + " line " + std::to_string(i + 2));
        auto s = read_step(in);
        if (!s)
            return s.err();
        by_run[*in.text("run_id")].push_back(std::move(*s));
    }
    std::vector<capacity_record> out;
    for (std::size_t i = 0; i < summary->size(); ++i) {
        auto where = paths.summary.string() + " line " + std::to_string(i + 2);
        row_reader in((*summary)[i], where);
        capacity_record r;
        for (auto [column, into] : {std::pair{"run_id", &r.run_id},
                                    {"scenario", &r.scenario},
                                    {"arm", &r.arm},
                                    {"model", &r.model},
                                    {"slo", &r.slo},
                                    {"connections", &r.connections},
                                    {"stop_reason", &r.result.stop_reason}}) {
            auto v = in.text(column);
            if (!v)
                return v.err();
            *into = *v;
        }
        auto outcome_text = in.text("outcome");
        if (!outcome_text)
            return outcome_text.err();
        auto outcome = parse_capacity_outcome(*outcome_text);
        if (!outcome)
            return fail(where + ": unknown outcome '" + *outcome_text + "'");
        r.result.what = *outcome;
        auto capacity = in.number("capacity_rps");
        if (!capacity)
            return capacity.err();
        r.result.capacity_rps = *capacity;
        if (r.result.what == capacity_result::outcome::measured) {
            auto low = in.number("capacity_rps_low"), high = in.number("capacity_rps_high");
            if (!low || !high)
                return fail((low ? high : low).err().message);
            r.result.low_rps = *low;
            r.result.high_rps = *high;
        }
        auto estimates = in.text("estimates");
        if (!estimates)
            return estimates.err();
        for (std::size_t at = 0; at < estimates->size();) {
            auto end = estimates->find(' ', at);
            auto item = estimates->substr(at, end == std::string::npos ? std::string::npos : end - at);
            double v = 0;
            auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
            if (ec != std::errc{} || p != item.data() + item.size())
                return fail(where + ": estimate '" + item + "' is not a number");
            r.result.estimates.push_back(v);
            at = end == std::string::npos ? estimates->size() : end + 1;
        }
        auto depth = in.text("pipeline");
        if (!depth)
            return depth.err();
        auto [p, ec] = std::from_chars(depth->data(), depth->data() + depth->size(), r.result.pipeline);
        if (ec != std::errc{} || p != depth->data() + depth->size() || r.result.pipeline == 0)
            return fail(where + ": pipeline '" + *depth + "' is not a whole number of at least 1");
        r.result.steps = by_run[r.run_id];
        out.push_back(std::move(r));
    }
    return out;
}

result<std::map<std::string, std::string>> capacity_machines(const capacity_paths& paths)
{
    std::map<std::string, std::string> out;
    auto contexts = read_context_file(paths.context);
    if (!contexts)
        return contexts.err();
    // A search's steps each write a line; its first names the machine, and every step ran on the same one.
    for (const auto& c : *contexts)
        if (!c.run_id.empty() && !c.machine.cpu_model.empty())
            out.emplace(c.run_id, machine_identity(c.machine));
    return out;
}

result<capacity_rate> rate_of_arm(const std::vector<capacity_record>& searches, const rate_from_capacity& from,
                                  std::string_view arm, const std::filesystem::path& file)
{
    auto what = describe(from) + " for arm " + std::string(arm) + ": ";
    // The files append search after search: the last one of the arm is its latest.
    auto it = std::find_if(searches.rbegin(), searches.rend(), [&](const capacity_record& r) {
        return r.scenario == from.capacity_of && r.arm == arm;
    });
    if (it == searches.rend())
        return fail(what + file.string() + " holds no search of " + from.capacity_of + " for arm " +
                    std::string(arm) + "; run bench-suite --suite capacity --scenarios " + from.capacity_of +
                    " with that arm first");
    const auto& r = it->result;
    if (r.what != capacity_result::outcome::measured)
        return fail(what + "its search " + it->run_id + " measured no capacity, only " +
                    format_capacity_line(r, it->slo) + "; a multiple of it would be no overload");
    if (auto bound = bounding_connections(r))
        return fail(what + "its capacity " + grouped(static_cast<std::uint64_t>(r.capacity_rps)) +
                    " req/s (search " + it->run_id + ") is bounded by the scenario's " + grouped(*bound) +
                    " connections, not by the model; a multiple of it would be no overload of the model");
    return capacity_rate{from.times * r.capacity_rps, r.capacity_rps, it->run_id};
}

}  // namespace execbench::load
