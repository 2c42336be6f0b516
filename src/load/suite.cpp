#include "execbench/load/suite.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/load/limits.hpp"
#include "execbench/load/results.hpp"

#include "csv_lines.hpp"
#include "server_timeline.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>

#include <sys/resource.h>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;
using detail::csv_field;
using detail::fixed;

}  // namespace

namespace {

unsigned depth_of(const std::vector<request_spec>& mix)
{
    unsigned deepest = 0;
    for (const auto& r : mix) {
        auto q = r.path.find("delayCallDepth=");
        if (q == std::string::npos)
            continue;
        unsigned d = 0;
        const char* b = r.path.data() + q + 15;
        std::from_chars(b, r.path.data() + r.path.size(), d);
        deepest = std::max(deepest, d);
    }
    return deepest;
}

}  // namespace

unsigned max_call_depth(const scenario& s)
{
    auto d = depth_of(s.mix);
    if (s.background)
        d = std::max(d, depth_of(s.background->mix));
    return d;
}

descriptor_needs descriptors_needed(const scenario& s)
{
    descriptor_needs n;
    auto clients = connections_needed(s);
    n.load_generator = clients + spare_descriptors;
    auto depth = max_call_depth(s);
    // Each in-flight request holds its client socket plus, per call level, an outgoing socket; a call back into the
    // same server also holds the accepted end. A separate downstream takes the accepted ends of the first level.
    std::uint64_t per_request = 1;
    if (depth > 0)
        per_request = s.server.downstream == "separate" ? 2 : 1 + 2 * std::uint64_t{depth};
    n.server = clients * per_request + spare_descriptors;
    return n;
}

std::vector<std::string> server_option_args(const server_spec& spec)
{
    std::vector<std::string> out;
    for (const auto& [name, value] : spec.options) {
        if (value == "false")
            continue;
        out.push_back("--" + name);
        if (value != "true")
            out.push_back(value);
    }
    return out;
}

std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-server-timeline.csv");
}

std::vector<std::string> scenarios_in_suite(const std::filesystem::path& dir, std::string_view suite)
{
    std::vector<std::string> out;
    for (const auto& e : list_scenarios(dir))
        if (std::find(e.suites.begin(), e.suites.end(), suite) != e.suites.end())
            out.push_back(e.name);
    return out;
}

namespace {

/// A rough length of one run, for the remaining-time estimate.
duration estimate(const scenario& s)
{
    auto per_trial = s.load.kind == shape::burst ? duration{std::chrono::seconds{2}} : s.load.length;
    auto pauses = (s.trials > 0 ? s.trials - 1 : 0) + (s.warmup.count() > 0 ? 1 : 0);
    return s.warmup + s.trials * per_trial + pauses * s.pause + std::chrono::seconds{2};
}

std::string error_summary(const run_result& r)
{
    std::string out;
    for (const auto& m : r.summary) {
        bool error_column = m.name.rfind("errors_", 0) == 0 || m.name == "requests_unsent";
        if (!error_column || m.spread.max <= 0)
            continue;
        out += (out.empty() ? "" : ", ") + m.name + "=" + fixed(m.spread.median, 0);
        if (m.spread.max != m.spread.median)
            out += " (max " + fixed(m.spread.max, 0) + ")";
    }
    return out;
}

/// What one server lifetime produced: how it ended and, when it ran, its result and the server's samples.
struct run_outcome {
    run_status status = run_status::failed;
    std::string message;
    std::optional<run_result> result;
    std::vector<std::string> server_timeline;  ///< CSV lines
};

/// The open-file check before a run: a message saying why the scenario cannot run here, or nothing.
std::optional<std::string> beyond_open_files(const scenario& s)
{
    // Open files: the generator runs in this process, the server in its child; neither limit can be
    // raised beyond the hard limit, so a scenario beyond it is reported rather than attempted.
    auto needs = descriptors_needed(s);
    if (auto lim = ensure_open_files(connections_needed(s)); !lim)
        return "not run: the load generator " + lim.err().message;
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    // The kernel caps every process at fs.nr_open whatever its limit says (even "unlimited").
    std::uint64_t limit = lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : lim.rlim_cur;
    {
        std::ifstream nr_open("/proc/sys/fs/nr_open");
        std::uint64_t cap = 0;
        if (nr_open >> cap && cap > 0)
            limit = std::min(limit, cap);
    }
    if (needs.server > limit) {
        auto depth = max_call_depth(s);
        std::string msg = "not run: the server would need about " + std::to_string(needs.server) +
                          " open files (" + std::to_string(connections_needed(s)) + " client connections" +
                          (depth > 0 ? " plus the sockets of " + std::to_string(depth) + " call level(s) per request" : "") +
                          ") but the open-file limit (RLIMIT_NOFILE) is " + std::to_string(limit) +
                          " and cannot be raised here";
        return msg;
    }
    return std::nullopt;
}

/// One scenario under one model on a fresh server (and a fresh downstream server when the scenario asks for one).
/// Writes nothing: the caller files the outcome.
run_outcome run_one(const suite_options& o, const scenario& s, const std::string& model)
{
    run_outcome out;
    if (auto why = beyond_open_files(s)) {
        out.status = run_status::not_run;
        out.message = *why;
        return out;
    }

    auto deadline_of = [&] { return clock::now() + o.start_timeout; };
    server_process downstream;
    server_process server;
    std::vector<std::string> args{"--model", model, "--host", "127.0.0.1"};
    auto extra = server_option_args(s.server);
    args.insert(args.end(), extra.begin(), extra.end());
    if (s.server.downstream == "separate") {
        auto started = downstream.start(o.server_binary, {"--model", s.server.downstream_model, "--host", "127.0.0.1"},
                                        deadline_of());
        if (!started) {
            out.message = "downstream " + started.err().message;
            return out;
        }
        args.emplace_back("--downstream");
        args.push_back(downstream.url());
    }
    if (auto started = server.start(o.server_binary, args, deadline_of()); !started) {
        (void)downstream.stop(o.stop_timeout);
        out.message = started.err().message;
        return out;
    }

    run_options ro;
    ro.url = server.url();
    ro.threads = o.threads;
    ro.server_pid = server.pid();
    ro.stop = o.stop;
    std::vector<detail::trial_window> windows;
    ro.on_progress = [&](const progress_event& ev) {
        if (ev.what == progress_event::phase::trial_done && ev.finished) {
            auto now = clock::now();
            windows.push_back({ev.finished->index, now - ev.finished->measured.elapsed, now});
        }
        if (o.on_progress)
            o.on_progress(ev);
    };
    auto recorder = std::make_unique<detail::server_recorder>(server.pid(), o.server_sample_period);
    auto r = run(s, ro);
    auto readings = recorder->finish();
    recorder.reset();

    std::string stop_problem;
    if (auto st = server.stop(o.stop_timeout); !st)
        stop_problem = st.err().message;
    if (auto st = downstream.stop(o.stop_timeout); !st)
        stop_problem += (stop_problem.empty() ? "downstream " : "; downstream ") + st.err().message;

    if (!r) {
        out.message = r.err().message + (stop_problem.empty() ? "" : "; " + stop_problem);
        return out;
    }
    auto& res = *r;
    out.server_timeline = detail::server_timeline_lines(res, windows, readings);
    std::string message = error_summary(res);
    if (res.server.model != model)
        message += std::string(message.empty() ? "" : "; ") + "server reported model '" + res.server.model + "'";
    if (res.partial)
        message += std::string(message.empty() ? "" : "; ") + "partial: stopped before all trials";
    if (!stop_problem.empty())
        message += std::string(message.empty() ? "" : "; ") + stop_problem;
    out.status = res.trials.empty()                   ? run_status::failed
                 : (res.had_errors() || res.partial) ? run_status::errors
                                                     : run_status::ok;
    out.message = std::move(message);
    out.result = std::move(res);
    return out;
}

}  // namespace

result<std::vector<suite_entry>> run_suite(const suite_options& o)
{
    if (o.scenarios.empty())
        return fail("suite " + o.suite + ": no scenarios to run");
    if (o.models.empty())
        return fail("suite " + o.suite + ": no models to run");
    std::vector<scenario> scenarios;
    for (const auto& name : o.scenarios) {
        auto s = load_named_scenario(o.scenarios_dir, name);
        if (!s)
            return s.err();
        if (auto applied = apply_overrides(*s, o.override_values); !applied)
            return fail("scenario " + name + ": " + applied.err().message);
        scenarios.push_back(std::move(*s));
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec)
        return fail(o.out_dir.string() + ": cannot create: " + ec.message());
    auto paths = output_paths_for(o.out_dir / (o.suite + ".csv"));
    auto ledger = ledger_path(o.out_dir, o.suite);

    std::vector<duration> estimates;
    for (const auto& s : scenarios)
        estimates.push_back(estimate(s));

    std::vector<suite_entry> entries;
    auto suite_start = clock::now();
    std::size_t count = scenarios.size() * o.models.size();
    std::size_t index = 0;
    for (std::size_t si = 0; si < scenarios.size(); ++si) {
        const auto& s = scenarios[si];
        for (std::size_t mi = 0; mi < o.models.size(); ++mi) {
            if (o.stop && o.stop->load())
                return entries;
            const auto& model = o.models[mi];
            ++index;
            if (o.on_run_start) {
                suite_progress p;
                p.index = index;
                p.count = count;
                p.scenario = s.name;
                p.model = model;
                p.elapsed = clock::now() - suite_start;
                p.remaining = estimates[si] * std::int64_t(o.models.size() - mi);
                for (std::size_t k = si + 1; k < scenarios.size(); ++k)
                    p.remaining += estimates[k] * std::int64_t(o.models.size());
                o.on_run_start(p);
            }

            suite_entry e;
            e.suite = o.suite;
            e.scenario = s.name;
            e.model = model;
            e.started_at = utc_timestamp();
            auto run_start = clock::now();
            auto outcome = run_one(o, s, model);
            if (outcome.result) {
                e.run_id = outcome.result->run_id;
                if (auto w = write_results(*outcome.result, paths); !w)
                    return w.err();
                if (auto w = detail::append_lines(server_timeline_path(o.out_dir, o.suite),
                                                  detail::server_timeline_header, outcome.server_timeline);
                    !w)
                    return w.err();
                // Keep the estimate honest for the models still to come.
                estimates[si] = clock::now() - run_start;
            }
            e.status = outcome.status;
            e.message = std::move(outcome.message);
            e.seconds = std::chrono::duration<double>(clock::now() - run_start).count();
            if (auto w = append_ledger(ledger, e); !w)
                return w.err();
            entries.push_back(e);
            if (o.on_run_done)
                o.on_run_done(e, outcome.result ? &*outcome.result : nullptr);
        }
    }
    return entries;
}

}  // namespace execbench::load
