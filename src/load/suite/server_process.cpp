#include "execbench/load/suite/server_process.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/stats/process.hpp"

#include "execbench/load/run/arm.hpp"
#include "execbench/load/run/http_request.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <optional>
#include <system_error>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace execbench::load {

namespace {

using clock = std::chrono::steady_clock;

// The process groups of the servers started and not yet stopped, read by a signal handler: lock-free atomics, a
// slot each (a suite runs a server, a downstream and a database at most at once).
std::array<std::atomic<pid_t>, 16> started_groups{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

void remember_group(pid_t group) noexcept
{
    for (auto& slot : started_groups) {
        pid_t empty = 0;
        if (slot.compare_exchange_strong(empty, group))
            return;
    }
}

void forget_group(pid_t group) noexcept
{
    for (auto& slot : started_groups) {
        pid_t expected = group;
        if (slot.compare_exchange_strong(expected, 0))
            return;
    }
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

void add_problem(std::string& to, const std::string& problem)
{
    to += (to.empty() ? "" : "; ") + problem;
}

/// 127.0.0.1:`port` (0: the kernel picks when it is bound).
sockaddr_in loopback(std::uint16_t port)
{
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

/// True when a TCP connect to 127.0.0.1:`port` succeeds (on loopback it succeeds or fails at once).
bool accepts_connections(std::uint16_t port)
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    auto addr = loopback(port);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

std::string replace_all(std::string text, std::string_view what, const std::string& with)
{
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
    return text;
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

void kill_started_servers() noexcept
{
    for (auto& slot : started_groups)
        if (pid_t group = slot.load(); group > 0)
            ::kill(-group, SIGKILL);
}

void server_process::forget_pid() noexcept
{
    if (pid_ > 0)
        forget_group(pid_);
    pid_ = -1;
}

void server_process::kill_group() noexcept
{
    if (pid_ <= 0)
        return;
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    forget_pid();
}

server_process::~server_process()
{
    kill_group();
    if (!dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
}

result<void> server_process::speak_tls(const std::string& key)
{
    auto ctx = tls::client_context::make({});
    if (!ctx)
        return ctx.err();
    tls_ = std::move(*ctx);
    tls_key_ = key;
    return {};
}

std::string server_process::url() const
{
    return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_);
}

detail::request_peer server_process::ready_peer() const
{
    return {boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address_v4("127.0.0.1"), port_),
            "127.0.0.1:" + std::to_string(port_), tls_.get(), "127.0.0.1"};
}

std::string server_process::stderr_tail(std::size_t max_bytes) const
{
    if (dir_.empty())
        return {};
    return log_tail({dir_ / "stderr"}, max_bytes);
}

result<void> server_process::launch(const std::vector<std::string>& argv)
{
    if (pid_ > 0)
        return fail("server already started");
    auto folder = make_scratch_folder("execbench-server");
    if (!folder)
        return fail("the server's output: " + folder.err().message);
    dir_ = *folder;
    // The child gets default signal handling whatever this process has set (e.g. SIGINT for a graceful stop).
    // Its own process group: a Ctrl-C at the terminal stops the suite after the current run, which then stops
    // the server itself, instead of the server dying under a run still measuring it; and a server that forks
    // workers (nginx, gunicorn) is stopped whole through the group.
    auto pid = spawn(argv, {{dir_ / "stdout", dir_ / "stderr"}, true, true});
    if (!pid)
        return pid.err();
    pid_ = *pid;
    remember_group(pid_);
    return {};
}

result<void> server_process::give_up(const std::string& why)
{
    std::string tail = stderr_tail();
    kill_group();
    return fail(label_ + " " + why + (tail.empty() ? "" : "; its stderr: " + tail));
}

result<void> server_process::await_ready(const std::function<bool()>& ready, const std::string& before,
                                         const std::string& late, clock::time_point deadline)
{
    while (true) {
        if (auto st = reap(pid_)) {
            forget_pid();
            return give_up(describe_exit(*st) + " before " + before);
        }
        if (ready())
            return {};
        if (clock::now() >= deadline)
            return give_up(late + " in time");
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
}

result<void> server_process::start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                                   clock::time_point deadline)
{
    std::vector<std::string> argv{binary.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.emplace_back("--port");
    argv.emplace_back("0");
    if (auto launched = launch(argv); !launched)
        return launched;

    auto out_file = dir_ / "stdout";
    // The start line: "bench-server model=... port=NNNN ... pid=NNN".
    // What a server that is not bench-server prints instead of its start line (nginx: 'invalid option: "-"').
    const std::string not_bench_server =
        " (--server-bin must be a bench-server; run your own server as --arm NAME=cmd:'COMMAND {port}', "
        "docs/own-server.md)";
    auto announced = await_ready(
        [&] {
            auto text = read_file(out_file).value_or("");
            auto nl = text.find('\n');
            if (nl != std::string::npos)
                start_line_ = text.substr(0, nl);
            return nl != std::string::npos;
        },
        "announcing its port", "printed no start line", deadline);
    if (!announced)
        return fail(announced.err().message + not_bench_server);
    auto port = announced_port(start_line_);
    if (!port)
        return give_up("start line has no port: '" + start_line_ + "'" + not_bench_server);
    port_ = *port;

    const auto peer = ready_peer();
    return await_ready(
        [&] {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            auto h = detail::http_get(peer, "/health",
                                      std::clamp(left, std::chrono::milliseconds{1}, std::chrono::milliseconds{1000}));
            return h && h->status == 200;
        },
        "/health answered", "did not answer /health on port " + std::to_string(port_), deadline);
}

result<void> server_process::start_command(const std::string& command, const std::string& downstream,
                                           const std::string& cpus, const std::string& ready_path,
                                           clock::time_point deadline)
{
    auto port = free_port();
    if (!port)
        return fail("the command: " + port.err().message);
    port_ = *port;
    auto text = replace_all(
        replace_all(replace_all(command, port_placeholder, std::to_string(port_)), downstream_placeholder, downstream),
        tls_key_placeholder, tls_key_);
    label_ = "the command '" + text + "'";
    command_ = true;
    start_line_ = text;
    std::vector<std::string> argv;
    if (!cpus.empty())
        argv = {"taskset", "--cpu-list", cpus};
    argv.insert(argv.end(), {"/bin/sh", "-c", text});
    if (auto launched = launch(argv); !launched)
        return fail(label_ + ": " + launched.err().message);

    const auto peer = ready_peer();
    const auto on_port = " on port " + std::to_string(port_);
    if (ready_path.empty())
        return await_ready([&] { return accepts_connections(port_); },
                           "accepting connections" + on_port +
                               " (a server that daemonizes must be told to stay in the foreground)",
                           "accepted no connection" + on_port, deadline);
    return await_ready(
        [&] {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            auto h = detail::http_get(peer, ready_path,
                                      std::clamp(left, std::chrono::milliseconds{1}, std::chrono::milliseconds{1000}));
            return h && h->status >= 200 && h->status < 300;
        },
        "answering GET " + ready_path + " with 2xx" + on_port,
        "did not answer GET " + ready_path + " with 2xx" + on_port, deadline);
}

result<void> server_process::stop(std::chrono::milliseconds grace)
{
    if (pid_ <= 0)
        return {};
    std::string problem;
    ::kill(-pid_, SIGTERM);
    auto deadline = clock::now() + grace;
    std::optional<int> status;
    while (!(status = reap(pid_)) && clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    if (!status) {
        ::kill(-pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        problem = "did not exit within " + std::to_string(grace.count()) + " ms of SIGTERM and was killed";
    } else if (*status != -1 && !(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) &&
               !(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM && command_)) {
        // A command's shell may die of the SIGTERM it was sent: that is a stop, not a problem.
        problem = describe_exit(*status) + " after SIGTERM";
    }
    // The rest of its group (workers, or a server the shell did not exec) has the same grace to follow.
    while (::kill(-pid_, 0) == 0 && clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    if (::kill(-pid_, 0) == 0) {
        ::kill(-pid_, SIGKILL);
        add_problem(problem, "processes of its group outlived it and were killed");
    }
    forget_pid();
    auto port_deadline = clock::now() + grace;
    while (!port_is_free(port_)) {
        if (clock::now() >= port_deadline) {
            add_problem(problem, "port " + std::to_string(port_) + " still in use after the server ended");
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    if (!problem.empty())
        return fail(label_ + " " + problem);
    return {};
}

std::optional<std::uint16_t> announced_port(std::string_view start_line)
{
    auto at = start_line.find(" port=");
    if (at == std::string_view::npos)
        return std::nullopt;
    unsigned port = 0;
    auto digits = start_line.substr(at + 6);
    std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (port == 0 || port > 65535)
        return std::nullopt;
    return static_cast<std::uint16_t>(port);
}

result<std::uint16_t> free_port()
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail("socket: " + std::system_category().message(errno));
    auto addr = loopback(0);
    socklen_t len = sizeof addr;
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
              ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    ::close(fd);
    if (!ok)
        return fail("cannot find a free port on 127.0.0.1");
    return static_cast<std::uint16_t>(ntohs(addr.sin_port));
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
    auto addr = loopback(port);
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

}  // namespace execbench::load
