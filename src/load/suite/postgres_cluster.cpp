#include "execbench/load/suite/postgres_cluster.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/load/suite/server_process.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <vector>

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace execbench::load {

namespace {

// The unprivileged account a root process runs the cluster as.
constexpr const char* cluster_user = "nobody";

/// The folder holding initdb and pg_ctl, or an error saying what to install.
result<std::filesystem::path> server_binaries()
{
    if (const char* env = std::getenv("EXECBENCH_PG_BIN"); env != nullptr && *env != '\0')
        return std::filesystem::path(env);
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec))
        if (std::filesystem::exists(entry.path() / "bin" / "initdb"))
            found.push_back(entry.path() / "bin");
    if (found.empty())
        return fail("no PostgreSQL server found in /usr/lib/postgresql/*/bin (install Debian's postgresql package, "
                    "or set EXECBENCH_PG_BIN to the folder with initdb and pg_ctl)");
    // Debian names the folders by major version; the newest sorts last once the numbers are compared as numbers.
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return std::atoi(a.parent_path().filename().c_str()) < std::atoi(b.parent_path().filename().c_str());
    });
    return found.back();
}

/// Runs `command` (a shell line of our own making: fixed words and our temporary folder) as the cluster's user,
/// under `timeout`, appending its output to `log`. The error names the command.
result<void> run_as_cluster_user(const std::string& command, std::chrono::seconds deadline,
                                 const std::filesystem::path& log)
{
    std::string line = "exec timeout -k 5 " + std::to_string(deadline.count()) + " ";
    if (::geteuid() == 0)
        line += std::string("runuser -u ") + cluster_user + " -- ";
    line += command + " >>'" + log.string() + "' 2>&1";
    auto rc = run_command({"/bin/sh", "-c", line});
    if (!rc)
        return rc.err();
    if (*rc == 124)
        return fail("'" + command + "' did not finish within " + std::to_string(deadline.count()) + " s");
    if (*rc != 0)
        return fail("'" + command + "' exited with " + std::to_string(*rc));
    return {};
}

}  // namespace

postgres_cluster::~postgres_cluster()
{
    if (running_) {
        if (!stop(std::chrono::seconds(20))) {
            (void)run_as_cluster_user("'" + (bin_ / "pg_ctl").string() + "' -D '" + (dir_ / "data").string() +
                                          "' -w -t 10 -m immediate stop",
                                      std::chrono::seconds(20), dir_ / "commands.log");
        }
    }
    remove();
}

result<void> postgres_cluster::start(std::chrono::seconds deadline)
{
    auto bin = server_binaries();
    if (!bin)
        return bin.err();
    bin_ = *bin;
    auto port = free_port();
    if (!port)
        return port.err();
    port_ = *port;

    auto folder = make_scratch_folder("execbench-pg");
    if (!folder)
        return fail("PostgreSQL's folder: " + folder.err().message);
    dir_ = *folder;
    if (::geteuid() == 0) {
        const passwd* user = ::getpwnam(cluster_user);
        if (user == nullptr || ::chown(dir_.c_str(), user->pw_uid, user->pw_gid) != 0) {
            auto message = "cannot hand " + dir_.string() + " to the user " + cluster_user +
                           " (PostgreSQL refuses to run as root)";
            remove();
            return fail(message);
        }
    }
    auto initdb = run_as_cluster_user("'" + (bin_ / "initdb").string() + "' -D '" + (dir_ / "data").string() +
                                          "' -U bench --auth=trust -E UTF8 --no-sync",
                                      deadline, dir_ / "commands.log");
    if (!initdb) {
        auto message = "initdb: " + initdb.err().message + ": " + log_tail();
        remove();
        return fail(message);
    }
    auto started = pg_ctl_start(deadline);
    if (!started) {
        remove();
        return started;
    }
    return {};
}

result<void> postgres_cluster::pg_ctl_start(std::chrono::seconds deadline)
{
    auto started = run_as_cluster_user("'" + (bin_ / "pg_ctl").string() + "' -D '" + (dir_ / "data").string() +
                                           "' -l '" + (dir_ / "server.log").string() + "' -w -t " +
                                           std::to_string(deadline.count()) + " -o '-c listen_addresses=127.0.0.1 -p " +
                                           std::to_string(port_) + " -k " + dir_.string() + "' start",
                                       deadline + std::chrono::seconds(5), dir_ / "commands.log");
    if (!started)
        return fail("pg_ctl start: " + started.err().message + ": " + log_tail());
    running_ = true;
    return {};
}

result<void> postgres_cluster::stop(std::chrono::seconds deadline)
{
    if (!running_)
        return {};
    auto stopped = run_as_cluster_user("'" + (bin_ / "pg_ctl").string() + "' -D '" + (dir_ / "data").string() +
                                           "' -w -t " + std::to_string(deadline.count()) + " -m fast stop",
                                       deadline + std::chrono::seconds(5), dir_ / "commands.log");
    if (!stopped)
        return fail("pg_ctl stop: " + stopped.err().message + ": " + log_tail());
    running_ = false;
    return {};
}

result<void> postgres_cluster::restart(std::chrono::seconds deadline)
{
    if (dir_.empty())
        return fail("the cluster was never started");
    if (running_)
        return {};
    return pg_ctl_start(deadline);
}

std::string postgres_cluster::url() const
{
    return "postgresql://bench@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

std::string postgres_cluster::log_tail(std::size_t max_bytes) const
{
    if (dir_.empty())
        return {};
    return execbench::log_tail({dir_ / "commands.log", dir_ / "server.log"}, max_bytes);
}

void postgres_cluster::remove() noexcept
{
    if (dir_.empty())
        return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
}

}  // namespace execbench::load
