#include "execbench/load/distributed/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <thread>

namespace execbench::load {

namespace {

constexpr std::string_view shard_file_tag = "execbench-shard-trials 1";
constexpr unsigned max_shards = 1024;

/// Shares one load's figures; `what` names the load in the error.
result<void> share_load(load_spec& l, shard_spec s, std::string_view what)
{
    // Every shard needs at least one, so that any shard alone can tell the split does not work.
    for (const auto& c : load_counts(l))
        if (c.value != 0 && c.value < s.count)
            return fail("--shard " + format_shard(s) + ": " + std::string(what) + " has " + std::to_string(c.value) +
                        " " + std::string(c.name) + ", fewer than the " + std::to_string(s.count) +
                        " shards (each needs at least one)");
    // A rate is a real number: every shard sends the same part.
    resize_load(l, {[s](std::uint64_t n) { return shard_share(n, s); }, [s](double rate) { return rate / s.count; }});
    return {};
}

std::string number_text(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

void write_group(std::string& out, std::string_view name, const group_measurement& g)
{
    out += "group ";
    out += name;
    out += "\ncount " + std::to_string(g.count.ok);
    for (auto e : g.count.errors)
        out += " " + std::to_string(e);
    out += " " + std::to_string(g.count.unsent) + " " + std::to_string(g.count.bytes_sent) + " " +
           std::to_string(g.count.body_bytes_received) + "\n";
    out += "wall " + std::to_string(g.wall.count()) + "\n";
    out += "started " +
           std::to_string(std::chrono::duration_cast<duration>(g.started_wall.time_since_epoch()).count()) + "\n";
    out += "histogram latency " + g.latency.serialize() + "\n";
    out += "histogram service " + g.service.serialize() + "\n";
    out += "histogram schedule_lag " + g.schedule_lag.serialize() + "\n";
    for (auto [series, values] : {std::pair{"latency", &g.latency_seconds}, std::pair{"service", &g.service_seconds}})
        for (std::size_t i = 0; i < values->size(); ++i)
            if (auto h = values->at(i); h.count() > 0)
                out += "second " + std::string(series) + " " + std::to_string(i) + " " + h.serialize() + "\n";
    for (std::size_t i = 0; i < g.timeline.size(); ++i) {
        const auto& t = g.timeline[i];
        out += "timeline " + std::to_string(i) + " " + std::to_string(t.ok) + " " + std::to_string(t.errors) + " " +
               std::to_string(t.unsent) + " " + std::to_string(t.users) + " " + std::to_string(t.connections) + " " +
               (t.sampled ? "1" : "0") + "\n";
    }
}

/// Reads the shard file line by line; every malformed line names itself.
class shard_reader {
public:
    explicit shard_reader(std::string_view text) : in_(std::string(text)) {}

    result<std::vector<trial_result>> read()
    {
        std::string line;
        if (!std::getline(in_, line) || line != shard_file_tag)
            return fail("not a shard trials file (its first line is not \"" + std::string(shard_file_tag) + "\")");
        ++line_no_;
        std::vector<trial_result> trials;
        group_measurement* group = nullptr;
        while (std::getline(in_, line)) {
            ++line_no_;
            std::istringstream f(line);
            std::string key;
            f >> key;
            if (key == "trial") {
                auto t = read_trial(f);
                if (!t)
                    return t.err();
                trials.push_back(std::move(*t));
                group = nullptr;
            } else if (trials.empty()) {
                return bad("a line before the first trial");
            } else if (key == "cpu_percent") {
                for (double v; f >> v;)
                    trials.back().measured.loadgen_cpu_percent.push_back(v);
                f.clear();
            } else if (key == "server") {
                stats::process_summary s;
                f >> s.samples >> s.resident_mb_avg >> s.resident_mb_max >> s.cpu_percent_avg >> s.cpu_percent_max >>
                    s.threads_max >> s.voluntary_switches >> s.involuntary_switches >> s.sockets_max >> s.cpu_seconds >>
                    s.resident_bytes_per_socket;
                trials.back().server = s;
            } else if (key == "group") {
                std::string name;
                f >> name;
                auto& m = trials.back().measured;
                group = name == "background" ? &m.background.emplace() : &m.foreground;
            } else if (group == nullptr) {
                return bad("\"" + key + "\" outside a group");
            } else if (auto r = read_group_line(key, f, *group); !r) {
                return r.err();
            }
            if (f.fail())
                return bad("a malformed \"" + key + "\" line");
        }
        return trials;
    }

private:
    error bad(const std::string& what) const { return fail("line " + std::to_string(line_no_) + ": " + what); }

    /// `trial INDEX STOPPED CPU_SECONDS ELAPSED_NS BOUND [REASON]`
    result<trial_result> read_trial(std::istringstream& f)
    {
        trial_result t;
        long long elapsed = 0;
        int stopped = 0, bound = 0;
        if (!(f >> t.index >> stopped >> t.measured.loadgen_cpu_seconds >> elapsed >> bound))
            return bad("a malformed \"trial\" line");
        t.measured.stopped = stopped != 0;
        t.measured.elapsed = duration{elapsed};
        t.generator_bound = bound != 0;
        // The reason is the rest of the line, often empty.
        std::getline(f, t.generator_bound_reason);
        f.clear();
        if (!t.generator_bound_reason.empty() && t.generator_bound_reason.front() == ' ')
            t.generator_bound_reason.erase(0, 1);
        return t;
    }

    /// A line of one group's measurement: its counts, times, histograms, per-second histograms or timeline.
    result<void> read_group_line(const std::string& key, std::istringstream& f, group_measurement& group)
    {
        if (key == "count") {
            f >> group.count.ok;
            for (auto& e : group.count.errors)
                f >> e;
            f >> group.count.unsent >> group.count.bytes_sent >> group.count.body_bytes_received;
        } else if (key == "wall" || key == "started") {
            long long ns = 0;
            f >> ns;
            if (key == "wall")
                group.wall = duration{ns};
            else
                group.started_wall = std::chrono::system_clock::time_point{
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(duration{ns})};
        } else if (key == "histogram") {
            std::string which;
            f >> which;
            auto h = rest_histogram(f);
            if (!h)
                return h.err();
            auto& slot = which == "latency" ? group.latency : which == "service" ? group.service : group.schedule_lag;
            slot = std::move(*h);
        } else if (key == "second") {
            std::string which;
            std::size_t index = 0;
            f >> which >> index;
            auto h = rest_histogram(f);
            if (!h)
                return h.err();
            auto& series = which == "latency" ? group.latency_seconds : group.service_seconds;
            if (auto ok = series.add(index, *h); !ok)
                return bad(ok.err().message);
        } else if (key == "timeline") {
            std::size_t index = 0;
            timeline_second t;
            int sampled = 0;
            f >> index >> t.ok >> t.errors >> t.unsent >> t.users >> t.connections >> sampled;
            t.sampled = sampled != 0;
            if (index > 1'000'000)
                return bad("a timeline second past the end");
            if (group.timeline.size() <= index)
                group.timeline.resize(index + 1);
            group.timeline[index] = std::move(t);
        } else {
            return bad("unknown line \"" + key + "\"");
        }
        return {};
    }

    result<stats::histogram> rest_histogram(std::istringstream& f)
    {
        std::string text;
        std::getline(f >> std::ws, text);
        auto h = stats::histogram::parse(text);
        if (!h)
            return bad(h.err().message);
        return h;
    }

    std::istringstream in_;
    std::size_t line_no_ = 0;
};

}  // namespace

result<shard_spec> parse_shard(std::string_view text)
{
    auto slash = text.find('/');
    shard_spec s;
    auto number = [](std::string_view t, unsigned& v) {
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        return ec == std::errc{} && end == t.data() + t.size() && !t.empty();
    };
    if (slash == std::string_view::npos || !number(text.substr(0, slash), s.index) ||
        !number(text.substr(slash + 1), s.count) || s.count < 1 || s.count > max_shards || s.index >= s.count)
        return fail("--shard: expected i/N with 0 <= i < N <= " + std::to_string(max_shards) + " (e.g. 0/2), got \"" +
                    std::string(text) + "\"");
    return s;
}

std::string format_shard(shard_spec s)
{
    return std::to_string(s.index) + "/" + std::to_string(s.count);
}

std::uint64_t shard_share(std::uint64_t n, shard_spec s) noexcept
{
    return n / s.count + (s.index < n % s.count ? 1 : 0);
}

result<scenario> shard_scenario(scenario s, shard_spec shard)
{
    if (shard.count == 1)
        return s;
    if (auto ok = share_load(s.load, shard, "the load"); !ok)
        return ok.err();
    if (s.background)
        if (auto ok = share_load(s.background->load, shard, "the background load"); !ok)
            return ok.err();
    return s;
}

std::int64_t epoch_millis_now()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::chrono::milliseconds wait_for_start(std::int64_t epoch_ms, const std::atomic<bool>* stop)
{
    auto late = epoch_millis_now() - epoch_ms;
    if (late > 0)
        return std::chrono::milliseconds{late};
    // Sleeps in short steps so that Ctrl-C still ends a shard that waits for a start far ahead.
    while (!(stop && stop->load())) {
        auto left = epoch_ms - epoch_millis_now();
        if (left <= 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds{std::min<std::int64_t>(left, 50)});
    }
    return std::chrono::milliseconds{0};
}

std::string format_shard_trials(const run_record& r)
{
    std::string out(shard_file_tag);
    out += "\n";
    for (const auto& t : r.trials) {
        const auto& m = t.measured;
        out += "trial " + std::to_string(t.index) + " " + (m.stopped ? "1 " : "0 ") +
               number_text(m.loadgen_cpu_seconds) + " " + std::to_string(m.elapsed.count()) + " " +
               (t.generator_bound ? "1 " : "0 ") + t.generator_bound_reason + "\n";
        out += "cpu_percent";
        for (double v : m.loadgen_cpu_percent)
            out += " " + number_text(v);
        out += "\n";
        if (const auto& s = t.server) {
            out += "server " + std::to_string(s->samples);
            for (double v : {s->resident_mb_avg, s->resident_mb_max, s->cpu_percent_avg, s->cpu_percent_max})
                out += " " + number_text(v);
            out += " " + std::to_string(s->threads_max) + " " + std::to_string(s->voluntary_switches) + " " +
                   std::to_string(s->involuntary_switches) + " " + std::to_string(s->sockets_max) + " " +
                   number_text(s->cpu_seconds) + " " + number_text(s->resident_bytes_per_socket) + "\n";
        }
        write_group(out, "foreground", m.foreground);
        if (m.background)
            write_group(out, "background", *m.background);
    }
    return out;
}

result<std::vector<trial_result>> parse_shard_trials(std::string_view text)
{
    return shard_reader(text).read();
}

void merge_shard_trials(std::vector<trial_result>& into, const std::vector<trial_result>& from, shard_spec from_shard)
{
    for (const auto& t : from) {
        auto it = std::find_if(into.begin(), into.end(), [&](const auto& x) { return x.index == t.index; });
        if (it == into.end()) {
            // The first shard with this trial: its figures as they are.
            into.push_back(t);
            auto& added = into.back();
            if (added.generator_bound)
                added.generator_bound_reason =
                    "shard " + format_shard(from_shard) + ": " + added.generator_bound_reason;
            continue;
        }
        auto& m = it->measured;
        merge_into(m.foreground, t.measured.foreground);
        if (t.measured.background) {
            if (!m.background)
                m.background.emplace();
            merge_into(*m.background, *t.measured.background);
        }
        m.stopped = m.stopped || t.measured.stopped;
        m.loadgen_cpu_seconds += t.measured.loadgen_cpu_seconds;
        if (t.measured.loadgen_cpu_percent.size() > m.loadgen_cpu_percent.size())
            m.loadgen_cpu_percent.resize(t.measured.loadgen_cpu_percent.size());
        for (std::size_t i = 0; i < t.measured.loadgen_cpu_percent.size(); ++i)
            m.loadgen_cpu_percent[i] += t.measured.loadgen_cpu_percent[i];
        m.elapsed = std::max(m.elapsed, t.measured.elapsed);
        if (!it->server)
            it->server = t.server;
        if (t.generator_bound) {
            it->generator_bound = true;
            it->generator_bound_reason += (it->generator_bound_reason.empty() ? "" : "; ") + std::string("shard ") +
                                          format_shard(from_shard) + ": " + t.generator_bound_reason;
        }
    }
    std::sort(into.begin(), into.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
}

}  // namespace execbench::load
