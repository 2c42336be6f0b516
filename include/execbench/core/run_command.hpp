#pragma once

#include "execbench/core/result.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/types.h>

namespace execbench {

/// Where a command's standard output and error go: each to its file (created or truncated), or inherited when the
/// path is empty. Standard input is inherited by `run_command` and /dev/null for a `background_command`.
struct command_output {
    std::filesystem::path out;
    std::filesystem::path err;
};

/// How `spawn` starts a child: where its output goes, whether its stdin is /dev/null, and whether it gets a process
/// group of its own (own_group_spawn_attributes).
struct spawn_options {
    command_output output;
    bool null_stdin = true;
    bool own_group = false;
};

/// Starts `argv[0]` (looked up on the PATH) with `argv` and returns its pid without waiting for it: the project's one
/// posix_spawn. The error says why it could not start.
result<pid_t> spawn(const std::vector<std::string>& argv, const spawn_options& how);

/// Runs `argv[0]` (looked up on the PATH) with `argv` and waits for it, without a shell: the child inherits
/// stdin/stdout/stderr unless `output` names files. The value is the exit status; the error says why it could not
/// start or how it died.
result<int> run_command(const std::vector<std::string>& argv, const command_output& output = {});

/// `argv` as the null-terminated array posix_spawn and exec take; it points into `argv`, which must outlive it.
std::vector<char*> exec_argv(const std::vector<std::string>& argv);

/// posix_spawn attributes for a child in its own process group, so that a Ctrl-C at the terminal reaches this process
/// only, which then stops the child in its own time; SIGINT, SIGTERM and SIGPIPE at their defaults, none blocked.
class own_group_spawn_attributes {
public:
    own_group_spawn_attributes();
    ~own_group_spawn_attributes();
    own_group_spawn_attributes(const own_group_spawn_attributes&) = delete;
    own_group_spawn_attributes& operator=(const own_group_spawn_attributes&) = delete;
    [[nodiscard]] const posix_spawnattr_t* get() const noexcept { return &attr_; }

private:
    posix_spawnattr_t attr_;
};

/// A command running beside this process until it is stopped (e.g. `perf record` over a trial). The destructor
/// kills (SIGKILL) and reaps it when it still runs, so none outlives its owner.
class background_command {
public:
    background_command() = default;
    ~background_command();
    background_command(const background_command&) = delete;
    background_command& operator=(const background_command&) = delete;

    /// Starts `argv[0]` (looked up on the PATH) with `argv`, its output as `output` says, in its own process group
    /// so a Ctrl-C at the terminal reaches this process only, which then stops it.
    result<void> start(const std::vector<std::string>& argv, const command_output& output);
    /// True while it has not been seen to exit.
    [[nodiscard]] bool running();
    /// Sends `signal_number` and waits up to `grace` for the exit, then SIGKILL. The value is the exit status (128 +
    /// the signal when a signal other than `signal_number` ended it); the error says it had to be killed.
    result<int> stop(int signal_number, std::chrono::milliseconds grace);
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

private:
    pid_t pid_ = -1;
    std::optional<int> status_;  ///< the wait status once reaped
};

}  // namespace execbench
