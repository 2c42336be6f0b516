#pragma once

#include "execbench/server/instance.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace execbench::test_support {

/// A program run as a child process, for tests that need a real process: signals, kill -9, descriptor limits.
///
/// Its stdout is a pipe read line by line with a deadline; its stderr goes to a temporary file read at the end.
/// The destructor kills it (SIGKILL) if it is still running and reaps it, so no test leaves a process behind.
class child_process {
public:
    /// Starts `argv[0]` with `argv`; when `max_open_files` is set, RLIMIT_NOFILE is lowered to it before exec.
    explicit child_process(const std::vector<std::string>& argv, std::optional<unsigned> max_open_files = {});
    ~child_process();
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// The next line of stdout (without '\n'); throws std::runtime_error when none arrives within `timeout`.
    std::string read_line(std::chrono::milliseconds timeout);
    /// Sends `signal_number`.
    void signal(int signal_number) const;
    /// Waits for the exit; the exit code, 128 + signal number when killed, or nothing when still running.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout);
    /// Everything the process wrote to stderr so far.
    [[nodiscard]] std::string stderr_text() const;
    /// CPU seconds (user + system) the process has used, from /proc/PID/stat.
    [[nodiscard]] double cpu_seconds() const;
    /// Open descriptors of the process, from /proc/PID/fd.
    [[nodiscard]] std::size_t open_descriptors() const;

private:
    pid_t pid_ = -1;
    int stdout_fd_ = -1;
    std::string stdout_buffer_;
    std::string stderr_path_;
    std::optional<int> exit_code_;
};

/// A bench-server child process on 127.0.0.1, port 0, ready (its /health answered) when constructed.
///
/// Not load::server_process, which the product runs servers with: a test also lowers the child's RLIMIT_NOFILE
/// before exec, reads its stdout line by line, sends it any signal and reads its exit status.
class server_process {
public:
    /// Starts bench-server with `--port 0` and `args`; throws when it does not announce a port or answer in time.
    explicit server_process(const std::vector<std::string>& args, std::optional<unsigned> max_open_files = {});

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] child_process& process() noexcept { return process_; }
    /// The start line bench-server printed.
    [[nodiscard]] const std::string& start_line() const noexcept { return start_line_; }

private:
    child_process process_;
    std::string start_line_;
    std::uint16_t port_ = 0;
};

/// The path of the bench-server binary this build made (empty when the build has none).
std::string bench_server_path();
/// The path of the bench-load binary this build made (empty when the build has none).
std::string bench_load_path();
/// The path of the bench-report binary this build made (empty when the build has none).
std::string bench_report_path();
/// The path of the bench-suite binary this build made (empty when the build has none).
std::string bench_suite_path();

/// The scenarios folder of this source tree, as the binaries' --scenarios-dir takes it.
std::string scenarios_dir();

/// How a binary run to its end ended: its exit code, its stdout lines and its stderr.
struct tool_outcome {
    int code = -1;
    std::vector<std::string> out;  ///< stdout lines
    std::string err;
    /// The stdout lines, each ended by a newline.
    [[nodiscard]] std::string out_text() const;
};

/// Runs a binary to its end and collects what it said; throws std::runtime_error, with its stderr, when it has not
/// exited within `limit`.
tool_outcome run_tool(const std::vector<std::string>& argv, std::chrono::seconds limit = std::chrono::seconds(60));

/// Resident memory of a process in KiB (from /proc through stats::sample_process), or -1 when it is gone.
long resident_kib(pid_t pid);

/// An in-process server built from explicit `server::options` (so a test can shorten timeouts, or serve TLS),
/// ready when constructed; port 0 and 127.0.0.1 are forced.
class option_server {
public:
    explicit option_server(server::options opts);
    ~option_server();
    option_server(const option_server&) = delete;
    option_server& operator=(const option_server&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept { return instance_.port(); }
    [[nodiscard]] server::instance& instance() noexcept { return instance_; }
    /// Stops; true when in-flight requests finished within `timeout`.
    bool stop(std::chrono::milliseconds timeout);

private:
    static server::options with_test_address(server::options opts);
    server::instance instance_;
    bool stopped_ = false;
};

/// Waits until `predicate()` holds or `timeout` passes; returns its last value.
template <class Predicate>
bool eventually(Predicate predicate, std::chrono::milliseconds timeout)
{
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (predicate())
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return predicate();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace execbench::test_support
