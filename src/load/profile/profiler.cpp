#include "execbench/load/profile/profiler.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/machine.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/server_probe.hpp"
#include "execbench/load/scenario/open_files.hpp"
#include "execbench/stats/process.hpp"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;

/// The last lines of a perf error file, on one line.
std::string tail_of(const std::filesystem::path& file)
{
    auto text = read_file(file);
    if (!text)
        return {};
    std::string out;
    for (char c : *text)
        out += c == '\n' ? ' ' : c;
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out.size() > 400 ? "..." + out.substr(out.size() - 400) : out;
}

std::string paranoid_hint()
{
    auto level = read_file("/proc/sys/kernel/perf_event_paranoid");
    std::string value = level ? std::string(level->substr(0, level->find('\n'))) : "unknown";
    return " (kernel.perf_event_paranoid is " + value +
           "; watching another process needs root, CAP_PERFMON or a lower setting, and system-call counts need "
           "tracefs)";
}

/// One perf process watching the server, disabled until `enable`, driven through its control FIFOs.
class perf_session {
public:
    perf_session(std::string name, const std::filesystem::path& dir) : name_(std::move(name)), dir_(dir) {}
    ~perf_session()
    {
        if (ctl_ >= 0)
            ::close(ctl_);
        if (ack_ >= 0)
            ::close(ack_);
    }
    perf_session(const perf_session&) = delete;
    perf_session& operator=(const perf_session&) = delete;

    /// Starts `perf <args> --control fifo:ctl,ack -D -1` and waits until it answers a ping (it has attached).
    result<void> start(const profile_options& p, std::vector<std::string> args)
    {
        auto ctl = dir_ / (name_ + ".ctl");
        auto ack = dir_ / (name_ + ".ack");
        if (::mkfifo(ctl.c_str(), 0600) != 0 || ::mkfifo(ack.c_str(), 0600) != 0)
            return fail("cannot make perf's control FIFOs: " + std::string(std::strerror(errno)));
        // Read-write ends never block on open and never see end-of-file while perf reopens its side.
        ctl_ = ::open(ctl.c_str(), O_RDWR | O_CLOEXEC);
        ack_ = ::open(ack.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (ctl_ < 0 || ack_ < 0)
            return fail("cannot open perf's control FIFOs: " + std::string(std::strerror(errno)));
        std::vector<std::string> argv{p.perf};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), {"--control", "fifo:" + ctl.string() + "," + ack.string(), "-D", "-1"});
        if (auto started = process_.start(argv, {dir_ / (name_ + ".out"), err_file()}); !started)
            return started;
        timeout_ = p.control_timeout;
        return command("ping");
    }
    result<void> enable() { return command("enable"); }
    result<void> disable() { return command("disable"); }
    /// Stops perf (SIGINT: it writes its output and exits).
    result<void> finish()
    {
        auto st = process_.stop(SIGINT, std::chrono::seconds{60});
        if (!st)
            return fail("perf " + name_ + " " + st.err().message);
        if (*st != 0)
            return fail("perf " + name_ + " exited with status " + std::to_string(*st) + ": " + tail_of(err_file()));
        return {};
    }
    [[nodiscard]] std::filesystem::path err_file() const { return dir_ / (name_ + ".err"); }

private:
    /// Writes one command and waits for perf's "ack".
    result<void> command(const std::string& what)
    {
        auto why = [&](const std::string& problem) {
            return fail("perf " + name_ + ": " + problem + (process_.running() ? "" : ": " + tail_of(err_file())));
        };
        std::string line = what + "\n";
        if (::write(ctl_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
            return why("cannot write to its control FIFO");
        auto deadline = clock::now() + timeout_;
        std::string answer;
        while (answer.find('\n') == std::string::npos) {
            if (!process_.running())
                return why("exited before answering '" + what + "'");
            if (clock::now() >= deadline)
                return why("no answer to '" + what + "' within " + std::to_string(timeout_.count()) + " ms");
            pollfd pfd{ack_, POLLIN, 0};
            if (::poll(&pfd, 1, 100) > 0) {
                char buf[64];
                auto n = ::read(ack_, buf, sizeof buf);
                if (n > 0)
                    answer.append(buf, static_cast<std::size_t>(n));
            }
        }
        return {};
    }

    std::string name_;
    std::filesystem::path dir_;
    background_command process_;
    int ctl_ = -1;
    int ack_ = -1;
    std::chrono::milliseconds timeout_{20'000};
};

}  // namespace

namespace {

/// The threads of the processes in `tree`, as /proc lists them now.
std::uint64_t threads_of(const std::vector<pid_t>& tree)
{
    std::uint64_t threads = 0;
    for (auto member : tree) {
        std::error_code ec;
        for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(member) + "/task", ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
            ++threads;
    }
    return threads;
}

/// perf record's samples in `dir`, collapsed into folded stacks; what went wrong becomes a note.
void read_stacks(const profile_options& p, const std::filesystem::path& dir, profile_capture& out)
{
    auto script = dir / "script.txt";
    auto err = dir / "script.err";
    // --no-inline: resolving inlined frames through addr2line takes minutes on a few thousand samples.
    auto rc = run_command({p.perf, "script", "--no-inline", "-i", (dir / "perf.data").string()}, {script, err});
    auto text = rc && *rc == 0 ? read_file(script) : result<std::string>(fail(""));
    if (text)
        out.stacks = collapse_perf_script(*text);
    else
        out.notes.push_back("perf script failed: " + (rc ? tail_of(err) : rc.err().message));
    if (text && out.stacks.empty())
        out.notes.push_back("perf record took no samples of the server");
}

/// perf stat's counts from its CSV file; what went wrong becomes a note.
void read_counts(const std::filesystem::path& stat_file, profile_capture& out)
{
    auto text = read_file(stat_file);
    auto counts = text ? parse_perf_stat(*text) : result<perf_counts>(text.err());
    if (counts)
        out.counts = std::move(*counts);
    else
        out.notes.push_back("perf stat: " + counts.err().message);
}

}  // namespace

std::optional<std::string> perf_unavailable(const profile_options& p)
{
    auto rc = run_command({p.perf, "--version"}, {"/dev/null", "/dev/null"});
    if (!rc)
        return "perf is not installed (" + rc.err().message + "; Debian's linux-perf)";
    if (*rc != 0)
        return p.perf + " --version exited with status " + std::to_string(*rc) +
               " (Debian's perf wrapper says so when no perf matches the running kernel)";
    return std::nullopt;
}

result<profile_capture> run_profiled(const scenario& s, const run_options& options, const profile_options& p)
{
    if (auto missing = perf_unavailable(p))
        return fail(*missing);
    auto opened = open_target(options);
    if (!opened)
        return opened.err();
    const auto& server = opened->server;
    if (!server.pid)
        return fail("the server's pid is unknown (a remote server, or give --server-pid): perf cannot watch it");
    scratch_dir dir("execbench-profile");
    if (dir.path().empty())
        return fail("cannot create a temporary folder for perf's files");
    // The whole tree: a master process's workers do the serving.
    const auto tree = stats::process_tree(*server.pid);
    std::string pid;
    for (auto member : tree)
        pid += (pid.empty() ? "" : ",") + std::to_string(member);
    if (pid.empty())
        return fail("the server's process " + std::to_string(*server.pid) + " has ended");
    // perf stat opens one descriptor per event and thread, inherited from this process's limit.
    (void)raise_open_file_limit((threads_of(tree) + 8) * (counted_syscalls().size() + 8) + spare_descriptors);

    profile_capture out;
    // Two perf processes: stat counts exactly (no sampling) and record's samples do not disturb its counts.
    auto record = std::make_unique<perf_session>("record", dir.path());
    auto data = dir.path() / "perf.data";
    if (auto started = record->start(p, {"record", "--call-graph", "dwarf,16384", "-F", std::to_string(p.frequency),
                                         "-p", pid, "-o", data.string()});
        !started) {
        out.notes.push_back(started.err().message + paranoid_hint());
        record.reset();
    }
    auto stat = std::make_unique<perf_session>("stat", dir.path());
    auto stat_file = dir.path() / "stat.csv";
    if (auto started = stat->start(p, {"stat", "-x,", "-p", pid, "-o", stat_file.string(), "-e", perf_stat_events()});
        !started) {
        out.notes.push_back(started.err().message + paranoid_hint());
        stat.reset();
    }
    if (!record && !stat)
        return fail("perf cannot watch the server: " + out.notes.front());

    scenario one = s;
    one.trials = 1;
    run_options ro = options;
    auto control = [&](auto step) {
        for (auto* session : {&record, &stat})
            if (*session)
                if (auto done = step(**session); !done) {
                    out.notes.push_back(done.err().message);
                    session->reset();
                }
    };
    ro.before_trial = [&] { control([](perf_session& x) { return x.enable(); }); };
    ro.after_trial = [&] { control([](perf_session& x) { return x.disable(); }); };
    auto r = run(one, ro, *opened);
    if (!r)
        return r.err();
    out.run = std::move(*r);
    control([](perf_session& x) { return x.finish(); });

    if (record)
        read_stacks(p, dir.path(), out);
    if (stat)
        read_counts(dir.path() / "stat.csv", out);
    return out;
}

std::string format_profile_line(std::string_view scenario, std::string_view arm, const profile_capture* c,
                                double unprofiled_rps)
{
    std::string out = std::string(arm) + " " + std::string(scenario) + " profiled";
    if (!c)
        return out + ": no profile";
    char buf[160];
    auto rps = c->requests_per_second();
    std::snprintf(buf, sizeof buf, " (under perf, not a result): %.0f req/s", rps);
    out += buf;
    if (unprofiled_rps > 0) {
        std::snprintf(buf, sizeof buf, " (%.2f x the unprofiled median %.0f)", rps / unprofiled_rps, unprofiled_rps);
        out += buf;
    }
    auto requests = c->requests();
    if (c->counts && requests > 0) {
        double calls = c->counts->syscalls_total;
        std::snprintf(buf, sizeof buf, ", CPU %.1f us/request, %.2f context switches/request, %.1f system calls/request",
                      c->counts->task_clock_millis * 1000 / requests, c->counts->context_switches / requests,
                      calls / requests);
        out += buf;
        std::string top;
        for (std::size_t i = 0; i < c->counts->syscalls.size() && i < 4; ++i) {
            std::snprintf(buf, sizeof buf, "%s%s %.2f", i ? ", " : " (", c->counts->syscalls[i].first.c_str(),
                          c->counts->syscalls[i].second / requests);
            top += buf;
        }
        out += top.empty() ? "" : top + ")";
    }
    std::uint64_t samples = 0;
    for (const auto& [stack, n] : c->stacks)
        samples += n;
    out += ", " + std::to_string(samples) + " stack samples";
    return out;
}

}  // namespace execbench::load
