#include "server_run.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/file.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/filer.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/session/session.hpp"
#include "execbench/load/suite/postgres_cluster.hpp"

#include <chrono>

namespace execbench::load::detail {

namespace {

using clock = std::chrono::steady_clock;

}  // namespace

void add_note(std::string& to, const std::string& note)
{
    if (!note.empty())
        to += (to.empty() ? "" : "; ") + note;
}

namespace {

/// bench-server's command line for a model arm on loopback: the arm's model and options, and `cpus` when given.
std::vector<std::string> loopback_server_args(const arm_spec& a, const std::string& cpus)
{
    auto args = arm_server_args(a);
    args.insert(args.end(), {"--host", "127.0.0.1"});
    if (!cpus.empty())
        args.insert(args.end(), {"--cpus", cpus});
    return args;
}

/// The measured server's command line: its arm's, on the server's CPUs, with the scenario's options.
std::vector<std::string> model_server_args(const arm_spec& a, const scenario& s, const pinning& pins)
{
    auto args = loopback_server_args(a, pins.server_cpus);
    auto extra = server_option_args(s.server);
    args.insert(args.end(), extra.begin(), extra.end());
    if (s.tls)
        args.insert(args.end(), {"--tls", "--tls-key-type", s.tls_key});
    return args;
}

/// The database the scenario configures, made for this run and named on the server's command line. Only
/// bench-server's models run one: another arm with a scenario that configures one is refused.
result<void> start_database(const scenario& s, const arm_spec& a, postgres_cluster& database,
                            std::optional<scratch_dir>& file, std::vector<std::string>& args)
{
    if (a.kind() != arm_kind::model && s.server.database != "sqlite")
        return fail("scenario " + s.name + " configures bench-server's database (" + s.server.database +
                    "), which arm " + a.name + " does not run");
    if (s.server.database == "postgresql") {
        if (auto started = database.start(); !started)
            return fail("PostgreSQL " + started.err().message);
        args.emplace_back("--movies-db");
        args.push_back(database.url());
    }
    // A file on disk, so that a commit can wait for it; fresh for every run, removed with it.
    if (s.server.database == "sqlite-file") {
        file.emplace("execbench-movies");
        if (file->path().empty())
            return fail("cannot create a temporary folder for the movies file");
        args.emplace_back("--movies-db");
        args.push_back((file->path() / "movies.db").string());
    }
    return {};
}

/// The server under test: bench-server, an arm's command, or nothing for a server already running at a URL.
result<void> start_server(const suite_options& o, const arm_spec& a, const pinning& pins,
                          const std::vector<std::string>& args, const server_process& downstream,
                          server_process& server, clock::time_point deadline)
{
    switch (a.kind()) {
    case arm_kind::model: return server.start(o.server_binary, args, deadline);
    case arm_kind::command:
        return server.start_command(a.command, downstream.running() ? downstream.url() : std::string(),
                                    pins.server_cpus, o.ready_path, deadline);
    case arm_kind::url: return {};
    }
    return {};
}

/// How the session runs against the server started for this arm.
run_options options_for(const suite_options& o, const arm_spec& a, const pinning& pins, const server_process& server)
{
    run_options ro;
    ro.url = a.kind() == arm_kind::url ? a.url : server.url();
    ro.threads = o.threads;
    ro.label = a.name;
    // A running server's pid is found from its listening port, as bench-load finds it.
    if (server.running())
        ro.server_pid = server.pid();
    ro.stop = o.stop;
    ro.load_cpus = pins.load_cpu_count;
    ro.sample_period = o.server_sample_period;
    return ro;
}

}  // namespace

suite_entry entry_for(const suite_options& o, const scenario& s, const arm_spec& arm)
{
    suite_entry e;
    e.suite = o.suite;
    e.scenario = s.name;
    e.model = arm.model;
    e.arm = arm.name;
    e.started_at = utc_timestamp();
    return e;
}

servers_outcome with_servers(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                             const server_body& body)
{
    servers_outcome out;
    auto deadline_of = [&] { return clock::now() + o.start_timeout; };
    server_process downstream;
    postgres_cluster database;
    server_process server;
    // A TLS scenario's server serves https with the scenario's key: bench-server with --tls --tls-key-type, a
    // command as its configuration and `{tls_key}` say.
    if (auto tls = s.tls ? server.speak_tls(s.tls_key) : result<void>{}; !tls) {
        out.message = tls.err().message;
        return out;
    }
    auto args = a.kind() == arm_kind::model ? model_server_args(a, s, pins) : std::vector<std::string>{};
    if (s.server.downstream == "separate") {
        arm_spec downstream_arm;
        downstream_arm.name = "downstream";
        downstream_arm.model = s.server.downstream_model;
        auto started = downstream.start(o.server_binary, loopback_server_args(downstream_arm, pins.downstream_cpus),
                                        deadline_of());
        if (!started) {
            out.message = "downstream " + started.err().message;
            return out;
        }
        args.emplace_back("--downstream");
        args.push_back(downstream.url());
    }
    std::optional<scratch_dir> database_file;
    auto started = [&]() -> result<void> {
        if (auto db = start_database(s, a, database, database_file, args); !db)
            return db;
        return start_server(o, a, pins, args, downstream, server, deadline_of());
    }();
    if (!started) {
        (void)downstream.stop(o.stop_timeout);
        out.message = started.err().message;
        return out;
    }
    out.started = true;

    auto ro = options_for(o, a, pins, server);
    body(ro, server);

    if (auto st = server.stop(o.stop_timeout); !st)
        out.message = st.err().message;
    if (auto st = downstream.stop(o.stop_timeout); !st)
        out.message += (out.message.empty() ? "downstream " : "; downstream ") + st.err().message;
    return out;
}

run_outcome run_one(const suite_options& o, const scenario& s, const arm_spec& a, const run_order& order,
                    const pinning& pins)
{
    run_outcome out;
    std::optional<result<run_record>> r;
    auto servers = with_servers(o, s, a, pins, [&](run_options& ro, const server_process&) {
        // The run's own sampler is the only one: its readings of each trial make the suite's server timeline.
        ro.on_progress = [&](const progress_event& ev) {
            if (ev.what == progress_event::phase::trial_done && ev.finished) {
                auto now = clock::now();
                out.sampled.windows.push_back({ev.finished->index, now - ev.finished->measured.elapsed, now});
                if (ev.server_readings)
                    out.sampled.readings.insert(out.sampled.readings.end(), ev.server_readings->begin(),
                                                ev.server_readings->end());
            }
            if (o.on_progress)
                o.on_progress(ev);
        };
        // The server was started for this scenario: no pre-flight (a failure row's first request may fail by
        // design), only what its /health and the port range say.
        session_options so;
        so.run = ro;
        auto opened = session::open(s, std::move(so));
        if (!opened) {
            r.emplace(opened.err());
            return;
        }
        for (const auto& warning : opened->warnings())
            add_note(out.message, warning);
        r.emplace(opened->run());
    });
    if (!servers.started) {
        out.message = servers.message;
        return out;
    }
    const auto& stop_problem = servers.message;
    if (!*r) {
        add_note(out.message, r->err().message + (stop_problem.empty() ? "" : "; " + stop_problem));
        return out;
    }
    auto& res = r->value();
    res.arm = a;
    res.order = order;
    res.affinity = pins.text;
    if (a.kind() == arm_kind::model && res.server.model != a.model)
        add_note(out.message, "server reported model '" + res.server.model + "'");
    add_note(out.message, stop_problem);
    if (auto idle = idle_server_warning(res))
        add_note(out.message, *idle);
    out.result = std::move(res);
    return out;
}

void profile_one(const suite_options& o, const scenario& s, const arm_spec& a, const pinning& pins,
                 const std::optional<run_record>& measured)
{
    profile_event ev;
    ev.scenario = s.name;
    ev.arm = a.name.empty() ? a.model : a.name;
    if (measured)
        for (const auto& m : measured->summary)
            if (m.name == metric::requests_per_second)
                ev.unprofiled_rps = m.spread.median;
    std::optional<result<profile_capture>> captured;
    auto servers = with_servers(o, s, a, pins, [&](run_options& ro, const server_process&) {
        ro.on_progress = o.on_progress;
        captured = run_profiled(s, ro, o.profiling);
    });
    if (!servers.started) {
        ev.message = servers.message;
    } else if (!*captured) {
        ev.message = captured->err().message;
    } else {
        auto& c = captured->value();
        c.run.arm = a;
        c.run.affinity = pins.text;
        for (const auto& note : c.notes)
            add_note(ev.message, note);
        if (auto w = file_profile(c, o.out_dir); !w)
            add_note(ev.message, w.err().message);
        ev.capture = &c;
    }
    add_note(ev.message, servers.started ? servers.message : "");
    if (o.on_profile_done)
        o.on_profile_done(ev);
}

}  // namespace execbench::load::detail
