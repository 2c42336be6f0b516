#include "execbench/core/run_command.hpp"

#include <cerrno>
#include <cstring>

#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace execbench {

result<int> run_command(const std::vector<std::string>& argv)
{
    if (argv.empty())
        return fail("no command to run");
    auto args = exec_argv(argv);
    pid_t pid = 0;
    if (int rc = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ); rc != 0)
        return fail("cannot start " + argv[0] + ": " + std::strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return fail("waiting for " + argv[0] + ": " + std::strerror(errno));
    if (WIFSIGNALED(status))
        return fail(argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)));
    return WEXITSTATUS(status);
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

}  // namespace execbench
