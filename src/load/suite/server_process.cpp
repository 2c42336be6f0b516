#include "execbench/load/suite/server_process.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/stats/process.hpp"

#include "execbench/load/run/http_request.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
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

std::string server_process::url() const
{
    return "http://127.0.0.1:" + std::to_string(port_);
}

std::string server_process::stderr_tail(std::size_t max_bytes) const
{
    if (dir_.empty())
        return {};
    return log_tail({dir_ / "stderr"}, max_bytes);
}

result<void> server_process::start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                                   clock::time_point deadline)
{
    if (pid_ > 0)
        return fail("server already started");
    auto folder = make_scratch_folder("execbench-server");
    if (!folder)
        return fail("the server's output: " + folder.err().message);
    dir_ = *folder;
    auto out_file = dir_ / "stdout";
    std::vector<std::string> argv{binary.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.emplace_back("--port");
    argv.emplace_back("0");
    // The child gets default signal handling whatever this process has set (e.g. SIGINT for a graceful stop).
    // Its own process group: a Ctrl-C at the terminal stops the suite after the current run, which then stops
    // the server itself, instead of the server dying under a run still measuring it.
    auto pid = spawn(argv, {{out_file, dir_ / "stderr"}, true, true});
    if (!pid)
        return pid.err();
    pid_ = *pid;

    auto give_up = [&](const std::string& why) -> result<void> {
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
        auto text = read_file(out_file).value_or("");
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
    auto port = announced_port(start_line_);
    if (!port)
        return give_up("start line has no port: '" + start_line_ + "'");
    port_ = *port;

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
            return {};
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
}

result<void> server_process::stop(std::chrono::milliseconds grace)
{
    if (pid_ <= 0)
        return {};
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

}  // namespace execbench::load
