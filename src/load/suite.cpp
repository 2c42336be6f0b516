#include "execbench/load/suite.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/load/limits.hpp"
#include "execbench/load/results.hpp"
#include "execbench/load/scale.hpp"
#include "execbench/stats/process.hpp"

#include "http_get.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;

std::string read_file(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// waitpid without blocking: the exit status when the child has ended.
std::optional<int> reap(pid_t pid)
{
    int status = 0;
    auto r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid)
        return status;
    if (r < 0)
        return -1;  // not our child any more
    return std::nullopt;
}

std::string describe_exit(int status)
{
    if (WIFEXITED(status))
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return std::string("was killed by signal ") + std::to_string(WTERMSIG(status));
    return "ended";
}

}  // namespace

server_process::~server_process()
{
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
    if (!dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
}

std::string server_process::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string server_process::stderr_tail(std::size_t max_bytes) const
{
    if (dir_.empty())
        return {};
    auto text = read_file(dir_ / "stderr");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    if (text.size() > max_bytes)
        text = "..." + text.substr(text.size() - max_bytes);
    return text;
}

result<bool> server_process::start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                                   clock::time_point deadline)
{
    if (pid_ > 0)
        return fail("server already started");
    std::string tmpl = (std::filesystem::temp_directory_path() / "execbench-server-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
        return fail("cannot create a temporary folder for the server's output");
    dir_ = tmpl;
    auto out_file = (dir_ / "stdout").string();
    auto err_file = (dir_ / "stderr").string();

    std::vector<std::string> argv_s{binary.string()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    argv_s.emplace_back("--port");
    argv_s.emplace_back("0");
    std::vector<char*> argv;
    for (auto& a : argv_s)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child gets default signal handling whatever this process has set (e.g. SIGINT for a graceful stop).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    // Its own process group: a Ctrl-C at the terminal stops the suite after the current run, which then stops
    // the server itself, instead of the server dying under a run still measuring it.
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, argv_s[0].c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return fail("cannot start " + binary.string() + ": " + std::strerror(rc));
    pid_ = pid;

    auto give_up = [&](const std::string& why) -> result<bool> {
        std::string tail = stderr_tail();
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            ::waitpid(pid_, &status, 0);
            pid_ = -1;
        }
        return fail("bench-server " + why + (tail.empty() ? "" : "; its stderr: " + tail));
    };

    // The start line: "bench-server model=... port=NNNN ... pid=NNN".
    while (true) {
        auto text = read_file(out_file);
        if (auto nl = text.find('\n'); nl != std::string::npos) {
            start_line_ = text.substr(0, nl);
            break;
        }
        if (auto st = reap(pid_)) {
            pid_ = -1;
            return give_up(describe_exit(*st) + " before announcing its port");
        }
        if (clock::now() >= deadline)
            return give_up("printed no start line in time");
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    auto at = start_line_.find(" port=");
    unsigned port = 0;
    if (at != std::string::npos) {
        const char* b = start_line_.data() + at + 6;
        const char* e = start_line_.data() + start_line_.size();
        std::from_chars(b, e, port);
    }
    if (port == 0 || port > 65535)
        return give_up("start line has no port: '" + start_line_ + "'");
    port_ = static_cast<std::uint16_t>(port);

    boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address_v4("127.0.0.1"), port_);
    std::string host = "127.0.0.1:" + std::to_string(port_);
    while (true) {
        if (auto st = reap(pid_)) {
            pid_ = -1;
            return give_up(describe_exit(*st) + " before /health answered");
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0)
            return give_up("did not answer /health in time on port " + std::to_string(port_));
        auto h = detail::http_get(ep, host, "/health", std::min(left, std::chrono::milliseconds{1000}));
        if (h && h->status == 200)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
}

result<bool> server_process::stop(std::chrono::milliseconds grace)
{
    if (pid_ <= 0)
        return true;
    std::string problem;
    ::kill(pid_, SIGTERM);
    auto deadline = clock::now() + grace;
    std::optional<int> status;
    while (!(status = reap(pid_)) && clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    if (!status) {
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        problem = "did not exit within " + std::to_string(grace.count()) + " ms of SIGTERM and was killed";
    } else if (*status != -1 && !(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)) {
        problem = describe_exit(*status) + " after SIGTERM";
    }
    pid_ = -1;
    auto port_deadline = clock::now() + grace;
    while (!port_is_free(port_)) {
        if (clock::now() >= port_deadline) {
            problem += std::string(problem.empty() ? "" : "; ") + "port " + std::to_string(port_) +
                       " still in use after the server ended";
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    if (!problem.empty())
        return fail("bench-server " + problem);
    return true;
}

bool port_is_free(std::uint16_t port)
{
    if (stats::find_listening_pid(port))
        return false;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

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
    // The downstream accepts the first level and calls itself for the levels below it.
    if (depth > 0 && s.server.downstream == "separate")
        n.downstream = clients * (2 * std::uint64_t{depth} - 1) + spare_descriptors;
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

std::string_view to_string(run_status s) noexcept
{
    switch (s) {
    case run_status::ok: return "ok";
    case run_status::errors: return "errors";
    case run_status::failed: return "failed";
    case run_status::not_run: return "not_run";
    }
    return "failed";
}

std::optional<run_status> parse_run_status(std::string_view text) noexcept
{
    for (auto s : {run_status::ok, run_status::errors, run_status::failed, run_status::not_run})
        if (to_string(s) == text)
            return s;
    return std::nullopt;
}

std::filesystem::path ledger_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-runs.csv");
}

std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-server-timeline.csv");
}

namespace {

std::string csv_field(std::string_view v)
{
    if (v.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(v);
    std::string out = "\"";
    for (char c : v) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

const char* const ledger_header = "suite,scenario,model,status,run_id,started_at,seconds,message";
const char* const server_timeline_header =
    "run_id,scenario,model,trial,second,server_cpu_percent,server_rss_mb,server_threads";

result<bool> append_lines(const std::filesystem::path& file, const std::string& header,
                          const std::vector<std::string>& lines)
{
    bool fresh = !std::filesystem::exists(file) || std::filesystem::file_size(file) == 0;
    if (!fresh) {
        std::ifstream in(file);
        std::string first;
        std::getline(in, first);
        if (first != header)
            return fail(file.string() + ": has other columns than this version writes; use another output folder");
    }
    std::ofstream out(file, std::ios::app);
    if (!out)
        return fail(file.string() + ": cannot open for writing");
    if (fresh)
        out << header << "\n";
    for (const auto& l : lines)
        out << l << "\n";
    out.flush();
    if (!out)
        return fail(file.string() + ": write failed");
    return true;
}

}  // namespace

result<bool> append_ledger(const std::filesystem::path& file, const suite_entry& e)
{
    std::string line = csv_field(e.suite) + "," + csv_field(e.scenario) + "," + csv_field(e.model) + "," +
                       std::string(to_string(e.status)) + "," + csv_field(e.run_id) + "," + csv_field(e.started_at) +
                       "," + fixed(e.seconds, 1) + "," + csv_field(e.message);
    return append_lines(file, ledger_header, {line});
}

result<std::vector<suite_entry>> read_ledger(const std::filesystem::path& file)
{
    auto t = read_csv(file);
    if (!t)
        return t.err();
    std::vector<std::string> cols{"suite", "scenario", "model", "status", "run_id", "started_at", "seconds", "message"};
    std::vector<int> idx;
    for (const auto& c : cols) {
        idx.push_back(t->column(c));
        if (idx.back() < 0)
            return fail(file.string() + ": missing column " + c);
    }
    std::vector<suite_entry> out;
    for (std::size_t i = 0; i < t->rows.size(); ++i) {
        const auto& row = t->rows[i];
        auto get = [&](int k) { return std::size_t(idx[k]) < row.size() ? row[idx[k]] : std::string{}; };
        suite_entry e;
        e.suite = get(0);
        e.scenario = get(1);
        e.model = get(2);
        auto st = parse_run_status(get(3));
        if (!st)
            return fail(file.string() + ": line " + std::to_string(i + 2) + ": status '" + get(3) +
                        "' is not ok, errors, failed or not_run");
        e.status = *st;
        e.run_id = get(4);
        e.started_at = get(5);
        e.seconds = std::atof(get(6).c_str());
        e.message = get(7);
        out.push_back(std::move(e));
    }
    return out;
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

/// Reads the server's CPU, memory and threads at a fixed rate on its own thread, with timestamps, so the suite can
/// cut per-second figures for each trial afterwards.
class server_recorder {
public:
    struct reading {
        clock::time_point at;
        double cpu_seconds = 0;
        double rss_mb = 0;
        std::uint32_t threads = 0;
    };

    server_recorder(pid_t pid, std::chrono::milliseconds period) : pid_(pid), period_(period)
    {
        thread_ = std::thread([this] {
            std::unique_lock lock(mutex_);
            while (!done_) {
                lock.unlock();
                auto s = stats::sample_process(pid_);
                lock.lock();
                if (s)
                    readings_.push_back({clock::now(), s->cpu_seconds, double(s->resident_bytes) / (1024.0 * 1024.0),
                                         s->threads});
                cv_.wait_for(lock, period_, [this] { return done_; });
            }
        });
    }
    ~server_recorder() { finish(); }
    server_recorder(const server_recorder&) = delete;
    server_recorder& operator=(const server_recorder&) = delete;

    std::vector<reading> finish()
    {
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) {
            thread_.join();
            // A last reading after the run, so the final trial has one at its end even when it was shorter than
            // the sampling period.
            if (auto s = stats::sample_process(pid_))
                readings_.push_back({clock::now(), s->cpu_seconds, double(s->resident_bytes) / (1024.0 * 1024.0),
                                     s->threads});
        }
        return readings_;
    }

private:
    pid_t pid_;
    std::chrono::milliseconds period_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::vector<reading> readings_;
    std::thread thread_;
};

struct trial_window {
    unsigned trial = 0;
    clock::time_point start;
    clock::time_point end;
};

/// Per-second CSV lines of the server figures inside each trial window.
std::vector<std::string> server_timeline_lines(const run_result& r, const std::vector<trial_window>& windows,
                                               const std::vector<server_recorder::reading>& readings)
{
    std::vector<std::string> lines;
    auto last_at_or_before = [&](clock::time_point t) -> const server_recorder::reading* {
        const server_recorder::reading* best = nullptr;
        for (const auto& rd : readings) {
            if (rd.at <= t)
                best = &rd;
            else
                break;
        }
        return best;
    };
    for (const auto& w : windows) {
        auto seconds = static_cast<long>(std::ceil(std::chrono::duration<double>(w.end - w.start).count()));
        for (long k = 0; k < std::max(seconds, 1L); ++k) {
            auto from = w.start + std::chrono::seconds{k};
            auto to = std::min(w.end, from + std::chrono::seconds{1});
            // The readings just around the second, so a trial shorter than the sampling period still gets one.
            const auto* a = last_at_or_before(from);
            if (!a && !readings.empty())
                a = &readings.front();
            const server_recorder::reading* b = nullptr;
            for (const auto& rd : readings)
                if (rd.at >= to) {
                    b = &rd;
                    break;
                }
            if (!b && !readings.empty())
                b = &readings.back();
            if (!a || !b || b->at <= a->at)
                continue;
            double cpu = 100.0 * (b->cpu_seconds - a->cpu_seconds) / std::chrono::duration<double>(b->at - a->at).count();
            double rss = b->rss_mb;
            std::uint32_t threads = b->threads;
            for (const auto& rd : readings)
                if (rd.at >= from && rd.at <= to) {
                    rss = std::max(rss, rd.rss_mb);
                    threads = std::max(threads, rd.threads);
                }
            lines.push_back(csv_field(r.run_id) + "," + csv_field(r.scenario_used.name) + "," +
                            csv_field(r.server.model) + "," + std::to_string(w.trial) + "," + std::to_string(k) + "," +
                            fixed(std::max(cpu, 0.0), 1) + "," + fixed(rss, 1) + "," + std::to_string(threads));
        }
    }
    return lines;
}

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
        for (std::size_t mi = 0; mi < o.models.size(); ++mi) {
            if (o.stop && o.stop->load())
                return entries;
            const auto& model = o.models[mi];
            ++index;
            if (o.on_run_start) {
                suite_progress p;
                p.index = index;
                p.count = count;
                p.scenario = scenarios[si].name;
                p.model = model;
                p.elapsed = clock::now() - suite_start;
                p.remaining = estimates[si] * std::int64_t(o.models.size() - mi);
                for (std::size_t k = si + 1; k < scenarios.size(); ++k)
                    p.remaining += estimates[k] * std::int64_t(o.models.size());
                o.on_run_start(p);
            }

            suite_entry e;
            e.suite = o.suite;
            e.scenario = scenarios[si].name;
            e.model = model;
            e.started_at = utc_timestamp();
            auto run_start = clock::now();
            const run_result* finished_result = nullptr;
            std::optional<run_result> result_holder;
            auto finish = [&](run_status st, std::string message) -> result<bool> {
                e.status = st;
                e.message = std::move(message);
                e.seconds = std::chrono::duration<double>(clock::now() - run_start).count();
                if (auto w = append_ledger(ledger, e); !w)
                    return w.err();
                entries.push_back(e);
                if (o.on_run_done)
                    o.on_run_done(e, finished_result);
                return true;
            };

            // Open files: the generator runs in this process, the servers in its children; none can go beyond the
            // hard limit, so a scenario beyond it is reported, or with --fit-to-limits run scaled and labelled.
            auto fitted = fit_open_files(scenarios[si], o.fit_to_limits);
            if (!fitted) {
                if (auto f = finish(run_status::not_run, fitted.err().message); !f)
                    return f.err();
                continue;
            }
            const auto& s = *fitted;

            auto deadline_of = [&] { return clock::now() + o.start_timeout; };
            server_process downstream;
            server_process server;
            std::vector<std::string> args{"--model", model, "--host", "127.0.0.1"};
            auto extra = server_option_args(s.server);
            args.insert(args.end(), extra.begin(), extra.end());
            if (s.server.downstream == "separate") {
                auto started = downstream.start(o.server_binary, {"--model", s.server.downstream_model, "--host",
                                                                  "127.0.0.1"},
                                                deadline_of());
                if (!started) {
                    if (auto f = finish(run_status::failed, "downstream " + started.err().message); !f)
                        return f.err();
                    continue;
                }
                args.emplace_back("--downstream");
                args.push_back(downstream.url());
            }
            if (auto started = server.start(o.server_binary, args, deadline_of()); !started) {
                (void)downstream.stop(o.stop_timeout);
                if (auto f = finish(run_status::failed, started.err().message); !f)
                    return f.err();
                continue;
            }

            run_options ro;
            ro.url = server.url();
            ro.threads = o.threads;
            ro.server_pid = server.pid();
            ro.stop = o.stop;
            std::vector<trial_window> windows;
            ro.on_progress = [&](const progress_event& ev) {
                if (ev.what == progress_event::phase::trial_done && ev.finished) {
                    auto now = clock::now();
                    windows.push_back({ev.finished->index, now - ev.finished->measured.elapsed, now});
                }
                if (o.on_progress)
                    o.on_progress(ev);
            };
            auto recorder = std::make_unique<server_recorder>(server.pid(), o.server_sample_period);
            auto r = run(s, ro);
            auto readings = recorder->finish();
            recorder.reset();

            std::string stop_problem;
            if (auto st = server.stop(o.stop_timeout); !st)
                stop_problem = st.err().message;
            if (auto st = downstream.stop(o.stop_timeout); !st)
                stop_problem += (stop_problem.empty() ? "downstream " : "; downstream ") + st.err().message;

            if (!r) {
                if (auto f = finish(run_status::failed, r.err().message +
                                                            (stop_problem.empty() ? "" : "; " + stop_problem));
                    !f)
                    return f.err();
                continue;
            }
            result_holder = std::move(*r);
            auto& res = *result_holder;
            finished_result = &res;
            e.run_id = res.run_id;
            if (auto w = write_results(res, paths); !w)
                return w.err();
            if (auto w = append_lines(server_timeline_path(o.out_dir, o.suite), server_timeline_header,
                                      server_timeline_lines(res, windows, readings));
                !w)
                return w.err();

            std::string message = error_summary(res);
            if (res.server.model != model)
                message += std::string(message.empty() ? "" : "; ") + "server reported model '" + res.server.model +
                           "'";
            if (res.partial)
                message += std::string(message.empty() ? "" : "; ") + "partial: stopped before all trials";
            if (!stop_problem.empty())
                message += std::string(message.empty() ? "" : "; ") + stop_problem;
            auto status = res.trials.empty()                      ? run_status::failed
                          : (res.had_errors() || res.partial)    ? run_status::errors
                                                                  : run_status::ok;
            // Keep the estimate honest for the models still to come.
            estimates[si] = clock::now() - run_start;
            if (auto f = finish(status, message); !f)
                return f.err();
        }
    }
    return entries;
}

}  // namespace execbench::load
