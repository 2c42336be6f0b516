#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/tls/client_context.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace execbench::load {

/// A server child process in a process group of its own: bench-server (started on port 0, its port read from the
/// first stdout line) or a user's command (on a port picked here), stopped with SIGTERM to its group (SIGKILL after a
/// timeout). Its stdout and stderr go to files in a temporary folder that is removed with it.
class server_process {
public:
    server_process() = default;
    ~server_process();
    server_process(const server_process&) = delete;
    server_process& operator=(const server_process&) = delete;

    /// Starts `binary` with `args` (plus `--port 0`), reads `port=` from its first stdout line and waits until
    /// /health answers 200, all within `deadline`. The error says what failed and quotes the server's stderr.
    result<void> start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                       std::chrono::steady_clock::time_point deadline);
    /// Starts `/bin/sh -c command` with `{port}` replaced by a free port (and `{downstream}` by `downstream`, and
    /// `{tls_key}` by the key speak_tls() was given), on
    /// `cpus` through taskset when given, and waits until the port accepts a connection, or, with a `ready_path`,
    /// until a GET of it answers 2xx, all within `deadline` (docs/own-server.md). The error quotes its stderr.
    result<void> start_command(const std::string& command, const std::string& downstream, const std::string& cpus,
                               const std::string& ready_path, std::chrono::steady_clock::time_point deadline);
    /// SIGTERM to its process group, then SIGKILL to the group when it has not exited within `grace`; then waits
    /// until nothing listens on the port any more (bounded by `grace` too). Returns an error when it had to be killed
    /// or the port stayed busy.
    result<void> stop(std::chrono::milliseconds grace);

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    [[nodiscard]] bool running() const noexcept { return pid_ > 0; }
    /// The server will speak TLS (bench-server --tls, or a command serving https) with a `key` ("p256", "rsa2048"):
    /// its URL is https:// and the readiness checks make TLS handshakes. Call before starting it; false when no TLS
    /// context can be made.
    result<void> speak_tls(const std::string& key);
    /// "http://127.0.0.1:<port>", or https:// after speak_tls()
    [[nodiscard]] std::string url() const;
    /// The first stdout line ("bench-server model=... port=... pid=...").
    [[nodiscard]] const std::string& start_line() const noexcept { return start_line_; }
    /// The last lines of its stderr (for error messages).
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 600) const;

private:
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    std::string start_line_;
    std::string label_ = "bench-server";  ///< how errors name it
    bool command_ = false;                ///< started by start_command: its shell may die of the SIGTERM it is sent
    std::filesystem::path dir_;
    std::shared_ptr<const tls::client_context> tls_;  ///< set by speak_tls()
    std::string tls_key_;                             ///< set by speak_tls(): what `{tls_key}` becomes

    result<void> launch(const std::vector<std::string>& argv);
    /// Where its readiness checks go: 127.0.0.1 on its port, over TLS after speak_tls().
    [[nodiscard]] detail::request_peer ready_peer() const;
    /// Its process is gone or stopped: no longer running, nor among the groups `kill_started_servers` ends.
    void forget_pid() noexcept;
    result<void> give_up(const std::string& why);
    /// SIGKILL to its whole group, then reaps it: nothing of it outlives this object.
    void kill_group() noexcept;
    /// Polls `ready` until it holds, the process ends ("... before `before`") or `deadline` passes (`late`).
    result<void> await_ready(const std::function<bool()>& ready, const std::string& before, const std::string& late,
                             std::chrono::steady_clock::time_point deadline);
};

/// The port bench-server's start line announces ("bench-server model=... port=NNNN ..."); nothing when it names
/// none. Every launcher of bench-server reads the line through this.
std::optional<std::uint16_t> announced_port(std::string_view start_line);

/// SIGKILL to the process group of every server this process started and has not stopped, for a process that must
/// exit at once (bench-suite's second Ctrl-C): otherwise they outlive it, orphans holding a CPU and a port.
/// Async-signal-safe: atomic loads and kill(2).
void kill_started_servers() noexcept;

/// True when nothing listens on 127.0.0.1:`port` and the port can be bound again.
bool port_is_free(std::uint16_t port);

/// A port on 127.0.0.1 that nothing uses now (the kernel's pick for port 0), for a server that must be told its
/// port (a command arm, PostgreSQL); the error says why none could be had.
result<std::uint16_t> free_port();

}  // namespace execbench::load
