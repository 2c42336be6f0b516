#include "execbench/core/run_command.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace execbench {

namespace {

/// posix_spawn file actions that send stdout and stderr where `output` says (and stdin from /dev/null when asked).
class redirections {
public:
    redirections(const command_output& output, bool null_stdin)
        : out_(output.out.string()), err_(output.err.string())
    {
        posix_spawn_file_actions_init(&actions_);
        if (null_stdin)
            posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
        if (!out_.empty())
            posix_spawn_file_actions_addopen(&actions_, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (!err_.empty())
            posix_spawn_file_actions_addopen(&actions_, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    ~redirections() { posix_spawn_file_actions_destroy(&actions_); }
    redirections(const redirections&) = delete;
    redirections& operator=(const redirections&) = delete;
    [[nodiscard]] const posix_spawn_file_actions_t* get() const noexcept { return &actions_; }

private:
    std::string out_, err_;  // addopen keeps the pointers: the strings must live as long as the actions
    posix_spawn_file_actions_t actions_;
};

result<int> exit_code(const std::string& name, int status)
{
    if (WIFSIGNALED(status))
        return fail(name + " was killed by signal " + std::to_string(WTERMSIG(status)));
    return WEXITSTATUS(status);
}

}  // namespace

result<pid_t> spawn(const std::vector<std::string>& argv, const spawn_options& how)
{
    if (argv.empty())
        return fail("no command to run");
    auto args = exec_argv(argv);
    redirections files(how.output, how.null_stdin);
    std::optional<own_group_spawn_attributes> attr;
    if (how.own_group)
        attr.emplace();
    pid_t pid = -1;
    if (int rc = posix_spawnp(&pid, args[0], files.get(), attr ? attr->get() : nullptr, args.data(), environ); rc != 0)
        return fail("cannot start " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

result<int> run_command(const std::vector<std::string>& argv, const command_output& output)
{
    auto pid = spawn(argv, {output, false, false});
    if (!pid)
        return pid.err();
    int status = 0;
    while (waitpid(*pid, &status, 0) < 0)
        if (errno != EINTR)
            return fail("waiting for " + argv[0] + ": " + std::strerror(errno));
    return exit_code(argv[0], status);
}

std::vector<char*> exec_argv(const std::vector<std::string>& argv)
{
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    // posix_spawn's argv is char* const[] for C's sake; it does not write through the pointers.
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return args;
}

background_command::~background_command()
{
    if (pid_ > 0 && !status_) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
}

own_group_spawn_attributes::own_group_spawn_attributes()
{
    posix_spawnattr_init(&attr_);
    // Default handling of the signals this process may catch (SIGINT for a graceful stop), none blocked.
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr_, &defaults);
    posix_spawnattr_setsigmask(&attr_, &none);
    posix_spawnattr_setpgroup(&attr_, 0);
    posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
}

own_group_spawn_attributes::~own_group_spawn_attributes()
{
    posix_spawnattr_destroy(&attr_);
}

result<void> background_command::start(const std::vector<std::string>& argv, const command_output& output)
{
    if (pid_ > 0)
        return fail(argv.empty() ? "already started" : argv[0] + ": already started");
    auto pid = spawn(argv, {output, true, true});
    if (!pid)
        return pid.err();
    pid_ = *pid;
    status_.reset();
    return {};
}

bool background_command::running()
{
    if (pid_ <= 0 || status_)
        return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_)
        status_ = status;
    return !status_;
}

result<int> background_command::stop(int signal_number, std::chrono::milliseconds grace)
{
    if (pid_ <= 0)
        return fail("not started");
    if (running())
        ::kill(pid_, signal_number);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    if (running()) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        status_ = status;
        return fail("did not exit within " + std::to_string(grace.count()) + " ms of signal " +
                    std::to_string(signal_number) + " and was killed");
    }
    if (WIFSIGNALED(*status_))
        return WTERMSIG(*status_) == signal_number ? 0 : 128 + WTERMSIG(*status_);
    return WEXITSTATUS(*status_);
}

}  // namespace execbench
