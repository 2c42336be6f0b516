#include "support/child_process.hpp"

#include "execbench/load/suite/server_process.hpp"
#include "execbench/stats/process.hpp"

#include "support/raw_client.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace execbench::test_support {

using clock_type = std::chrono::steady_clock;

child_process::child_process(const std::vector<std::string>& argv, std::optional<unsigned> max_open_files)
{
    if (argv.empty())
        throw std::invalid_argument("child_process: empty argv");
    char path_template[] = "/tmp/execbench-child-stderr-XXXXXX";
    int err_fd = ::mkstemp(path_template);
    if (err_fd < 0)
        throw std::runtime_error("mkstemp failed");
    stderr_path_ = path_template;
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");

    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    pid_ = ::fork();
    if (pid_ < 0)
        throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        // Only async-signal-safe calls between fork and exec.
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(err_fd, STDERR_FILENO);
        if (max_open_files) {
            struct rlimit limit {
                *max_open_files, *max_open_files
            };
            ::setrlimit(RLIMIT_NOFILE, &limit);
        }
        // Descriptors the test process holds must not count against the child's limit.
        for (int fd = 3; fd < 1024; ++fd)
            ::close(fd);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(out[1]);
    ::close(err_fd);
    stdout_fd_ = out[0];
}

child_process::~child_process()
{
    if (!exit_code_ && pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
    if (stdout_fd_ >= 0)
        ::close(stdout_fd_);
    std::error_code ec;
    std::filesystem::remove(stderr_path_, ec);
}

std::string child_process::read_line(std::chrono::milliseconds timeout)
{
    auto deadline = clock_type::now() + timeout;
    for (;;) {
        auto newline = stdout_buffer_.find('\n');
        if (newline != std::string::npos) {
            auto line = stdout_buffer_.substr(0, newline);
            stdout_buffer_.erase(0, newline + 1);
            return line;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
        if (left <= 0)
            throw std::runtime_error("no line on the child's stdout in time; stderr: " + stderr_text());
        pollfd p{stdout_fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0)
            continue;
        char chunk[512];
        auto n = ::read(stdout_fd_, chunk, sizeof chunk);
        if (n <= 0)
            throw std::runtime_error("the child closed its stdout; stderr: " + stderr_text());
        stdout_buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

void child_process::signal(int signal_number) const
{
    ::kill(pid_, signal_number);
}

std::optional<int> child_process::wait_exit(std::chrono::milliseconds timeout)
{
    auto deadline = clock_type::now() + timeout;
    while (!exit_code_) {
        int status = 0;
        auto r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (r < 0 && errno != EINTR)
            throw std::runtime_error("waitpid failed");
        if (clock_type::now() >= deadline)
            return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return exit_code_;
}

std::string child_process::stderr_text() const
{
    std::ifstream in(stderr_path_, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

double child_process::cpu_seconds() const
{
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Fields after the command name, which is in parentheses and may contain spaces.
    auto close_paren = stat.rfind(')');
    if (close_paren == std::string::npos)
        throw std::runtime_error("cannot read /proc/PID/stat");
    std::istringstream fields(stat.substr(close_paren + 2));
    std::string field;
    unsigned long long utime = 0;
    unsigned long long stime = 0;
    // utime and stime are fields 14 and 15 of the whole line, so 12 and 13 after the command.
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14)
            utime = std::stoull(field);
        if (i == 15)
            stime = std::stoull(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::size_t child_process::open_descriptors() const
{
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid_) + "/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}

namespace {

std::vector<std::string> server_argv(const std::vector<std::string>& args)
{
    std::vector<std::string> argv{bench_server_path(), "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

}  // namespace

server_process::server_process(const std::vector<std::string>& args, std::optional<unsigned> max_open_files)
    : process_(server_argv(args), max_open_files)
{
    start_line_ = process_.read_line(std::chrono::seconds(20));
    auto port = load::announced_port(start_line_);
    if (!port)
        throw std::runtime_error("bench-server start line without a port: " + start_line_);
    port_ = *port;
    bool ready = eventually(
        [&] {
            try {
                raw_client client(port_);
                return client.get("/health", {}, std::chrono::seconds(2)).status == 200;
            } catch (const std::runtime_error&) {
                return false;
            }
        },
        std::chrono::seconds(20));
    if (!ready)
        throw std::runtime_error("bench-server did not answer /health; stderr: " + process_.stderr_text());
}

std::string bench_server_path()
{
#ifdef EXECBENCH_BENCH_SERVER_PATH
    return EXECBENCH_BENCH_SERVER_PATH;
#else
    return {};
#endif
}

std::string bench_load_path()
{
#ifdef EXECBENCH_BENCH_LOAD_PATH
    return EXECBENCH_BENCH_LOAD_PATH;
#else
    return {};
#endif
}

std::string bench_report_path()
{
#ifdef EXECBENCH_BENCH_REPORT_PATH
    return EXECBENCH_BENCH_REPORT_PATH;
#else
    return {};
#endif
}

std::string bench_suite_path()
{
#ifdef EXECBENCH_BENCH_SUITE_PATH
    return EXECBENCH_BENCH_SUITE_PATH;
#else
    return {};
#endif
}

std::string scenarios_dir()
{
    return std::string(EXECBENCH_SOURCE_DIR) + "/scenarios";
}

std::string tool_outcome::out_text() const
{
    std::string text;
    for (const auto& l : out)
        text += l + "\n";
    return text;
}

tool_outcome run_tool(const std::vector<std::string>& argv, std::chrono::seconds limit)
{
    child_process child(argv);
    tool_outcome o;
    auto code = child.wait_exit(limit);
    if (!code)
        throw std::runtime_error(argv.front() + " did not exit in time; stderr: " + child.stderr_text());
    o.code = *code;
    try {
        for (;;)
            o.out.push_back(child.read_line(std::chrono::seconds(2)));
    } catch (const std::runtime_error&) {
        // end of its stdout
    }
    o.err = child.stderr_text();
    return o;
}

server::options option_server::with_test_address(server::options opts)
{
    opts.host = "127.0.0.1";
    opts.port = 0;
    return opts;
}

option_server::option_server(server::options opts) : instance_(with_test_address(std::move(opts)))
{
    instance_.start();
    // The probe below speaks cleartext. A TLS server listens from its construction and the kernel queues the
    // connections it has not accepted yet, so it is ready for a client now.
    if (instance_.app().info().tls)
        return;
    bool ready = eventually(
        [&] {
            try {
                raw_client client(port());
                return client.get("/health", {}, std::chrono::seconds(2)).status == 200;
            } catch (const std::runtime_error&) {
                return false;
            }
        },
        std::chrono::seconds(10));
    if (!ready) {
        stop(std::chrono::milliseconds(0));
        throw std::runtime_error("option_server did not answer /health in time");
    }
}

option_server::~option_server()
{
    stop(std::chrono::seconds(5));
}

bool option_server::stop(std::chrono::milliseconds timeout)
{
    if (stopped_)
        return true;
    stopped_ = true;
    return instance_.stop(clock_type::now() + timeout);
}

long resident_kib(pid_t pid)
{
    auto sample = stats::sample_process(pid);
    return sample ? static_cast<long>(sample->resident_bytes / 1024) : -1;
}

}  // namespace execbench::test_support
