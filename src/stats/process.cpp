#include "execbench/stats/process.hpp"

#include "execbench/core/text.hpp"
#include "execbench/stats/exposition.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace execbench::stats {

namespace {

/// Closes a directory stream on every path out of a scope.
class directory {
public:
    explicit directory(const std::string& path) : dir_(::opendir(path.c_str())) {}
    ~directory()
    {
        if (dir_ != nullptr)
            ::closedir(dir_);
    }
    directory(const directory&) = delete;
    directory& operator=(const directory&) = delete;

    [[nodiscard]] bool is_open() const noexcept { return dir_ != nullptr; }
    [[nodiscard]] int fd() const noexcept { return ::dirfd(dir_); }
    /// The next entry's name, or empty at the end; "." and ".." are skipped.
    std::string_view next() noexcept
    {
        while (dirent* entry = ::readdir(dir_)) {
            std::string_view name = entry->d_name;
            if (name != "." && name != "..")
                return name;
        }
        return {};
    }

private:
    DIR* dir_;
};

std::string errno_text()
{
    return std::system_category().message(errno);
}

/// Reads a whole file; /proc files report size 0, so this reads until end of file.
bool read_file(const std::string& path, std::string& out)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    out.clear();
    char buffer[4096];
    for (;;) {
        auto n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = errno;
            ::close(fd);
            errno = saved;
            return n == 0;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
}

template <class Integer>
bool parse_number(std::string_view text, Integer& value, int base = 10)
{
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    return ec == std::errc{} && end == text.data() + text.size();
}

/// The number after `key:` on its own line in a /proc status file, with an optional unit; false when absent.
bool status_field(std::string_view status, std::string_view key, std::uint64_t& value)
{
    std::size_t at = 0;
    while (at < status.size()) {
        auto end = status.find('\n', at);
        auto line = status.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
            auto number = trim(line.substr(key.size() + 1));
            number = number.substr(0, number.find(' '));
            return parse_number(number, value);
        }
        if (end == std::string_view::npos)
            break;
        at = end + 1;
    }
    return false;
}

std::vector<std::string_view> split_whitespace(std::string_view text)
{
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (true) {
        at = text.find_first_not_of(" \t\n", at);
        if (at == std::string_view::npos)
            return words;
        auto end = text.find_first_of(" \t\n", at);
        words.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        if (end == std::string_view::npos)
            return words;
        at = end;
    }
}

bool is_number(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The target of the fd link `name` inside the open fd directory, or empty when it vanished.
std::string_view fd_target(const directory& fds, std::string_view name, char (&buffer)[128])
{
    auto n = ::readlinkat(fds.fd(), std::string(name).c_str(), buffer, sizeof buffer);
    return n < 0 ? std::string_view{} : std::string_view(buffer, static_cast<std::size_t>(n));
}

}  // namespace

namespace {

/// Memory and threads from `status`, CPU time from `stat`.
result<void> read_status_and_stat(const std::string& base, process_sample& s)
{
    std::string text;
    auto status_path = base + "/status";
    if (!read_file(status_path, text))
        return fail("cannot read " + status_path + ": " + errno_text());
    std::uint64_t value = 0;
    // Zombies and kernel threads have no VmRSS line: they hold no user memory.
    if (status_field(text, "VmRSS", value))
        s.resident_bytes = value * 1024;
    if (!status_field(text, "Threads", value))
        return fail(status_path + ": no Threads line");
    s.threads = static_cast<std::uint32_t>(value);

    auto stat_path = base + "/stat";
    if (!read_file(stat_path, text))
        return fail("cannot read " + stat_path + ": " + errno_text());
    // The command name may hold spaces and parentheses; the fields resume after the last ')'.
    auto close = text.rfind(')');
    if (close == std::string::npos)
        return fail(stat_path + ": no ')' after the command name");
    auto words = split_whitespace(std::string_view(text).substr(close + 1));
    // Fields 14 and 15 of stat(5), utime and stime, are words 11 and 12 after the name (field 3 is word 0).
    std::uint64_t utime = 0;
    std::uint64_t stime = 0;
    if (words.size() < 13 || !parse_number(words[11], utime) || !parse_number(words[12], stime))
        return fail(stat_path + ": cannot read utime and stime");
    s.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    return {};
}

/// The open fds, cheaply: the kernel's count (Linux 6.2 and later), else the entries, without a readlink each.
result<void> count_fds(const std::string& fd_path, bool self, process_sample& s)
{
    // Since Linux 6.2 a stat() of the fd directory gives the number of open fds, counted by the kernel from
    // its fd bitmap; earlier kernels give 0, and the entries are counted instead (no readlink).
    struct stat st {};
    if (::stat(fd_path.c_str(), &st) != 0)
        return fail("cannot read " + fd_path + ": " + errno_text());
    if (st.st_size > 0) {
        s.open_fds = static_cast<std::uint32_t>(st.st_size);
        return {};
    }
    directory fds(fd_path);
    if (!fds.is_open())
        return fail("cannot read " + fd_path + ": " + errno_text());
    for (auto name = fds.next(); !name.empty(); name = fds.next())
        ++s.open_fds;
    // Reading our own directory held one more fd of ours, not the process's.
    if (self && s.open_fds > 0)
        --s.open_fds;
    return {};
}

/// The process's context switches: getrusage for this process, the sum over its tasks for another (full depth).
result<void> read_switches(const std::string& base, bool self, sample_depth depth, process_sample& s)
{
    if (self) {
        // getrusage sums every thread's switches, those that exited included, at the cost of one call.
        rusage usage{};
        if (::getrusage(RUSAGE_SELF, &usage) == 0) {
            s.voluntary_switches = static_cast<std::uint64_t>(usage.ru_nvcsw);
            s.involuntary_switches = static_cast<std::uint64_t>(usage.ru_nivcsw);
        }
        return {};
    }
    if (depth != sample_depth::full)
        return {};
    // The status file counts switches of the main thread only; the process total is the sum over its tasks.
    // Threads that already exited are not counted, so the sum can drop when threads end.
    auto task_path = base + "/task";
    directory tasks(task_path);
    if (!tasks.is_open())
        return fail("cannot read " + task_path + ": " + errno_text());
    std::string text;
    std::uint64_t value = 0;
    for (auto tid = tasks.next(); !tid.empty(); tid = tasks.next()) {
        // A thread may end between the listing and the read; it is simply skipped.
        if (!read_file(task_path + "/" + std::string(tid) + "/status", text))
            continue;
        if (status_field(text, "voluntary_ctxt_switches", value))
            s.voluntary_switches += value;
        if (status_field(text, "nonvoluntary_ctxt_switches", value))
            s.involuntary_switches += value;
    }
    return {};
}

/// Every open fd, and which of them are sockets (a readlink each).
result<void> walk_fds(const std::string& fd_path, bool self, process_sample& s)
{
    directory fds(fd_path);
    if (!fds.is_open())
        return fail("cannot read " + fd_path + ": " + errno_text());
    // Reading our own fd directory opens one more fd; it is the reader's, not the process's, so it is left out.
    auto own_listing = self ? std::to_string(fds.fd()) : std::string();
    char link[128];
    for (auto name = fds.next(); !name.empty(); name = fds.next()) {
        if (name == own_listing)
            continue;
        ++s.open_fds;
        if (fd_target(fds, name, link).starts_with("socket:["))
            ++s.open_sockets;
    }
    s.walked = true;
    return {};
}

}  // namespace

result<process_sample> sample_process(pid_t pid, sample_depth depth)
{
    bool self = pid == 0 || pid == ::getpid();
    std::string base = "/proc/" + std::to_string(self ? ::getpid() : pid);
    process_sample s;
    if (auto r = read_status_and_stat(base, s); !r)
        return r.err();
    auto fd_path = base + "/fd";
    if (depth == sample_depth::cheap)
        if (auto r = count_fds(fd_path, self, s); !r)
            return r.err();
    if (auto r = read_switches(base, self, depth, s); !r)
        return r.err();
    if (depth == sample_depth::cheap)
        return s;
    if (auto r = walk_fds(fd_path, self, s); !r)
        return r.err();
    return s;
}

std::vector<pid_t> process_tree(pid_t root)
{
    std::vector<pid_t> tree;
    if (::kill(root, 0) != 0 && errno == ESRCH)
        return tree;
    tree.push_back(root);
    std::string text;
    // Breadth first; a child may be listed under any thread that forked it, so every task is read. Each pid is
    // taken once, so a pid reused while walking cannot loop.
    for (std::size_t at = 0; at < tree.size() && tree.size() < 4096; ++at) {
        auto task_path = "/proc/" + std::to_string(tree[at]) + "/task";
        directory tasks(task_path);
        if (!tasks.is_open())
            continue;
        for (auto tid = tasks.next(); !tid.empty(); tid = tasks.next()) {
            if (!read_file(task_path + "/" + std::string(tid) + "/children", text))
                continue;
            for (auto word : split_whitespace(text)) {
                pid_t child = 0;
                if (parse_number(word, child) && std::find(tree.begin(), tree.end(), child) == tree.end())
                    tree.push_back(child);
            }
        }
    }
    return tree;
}

void add_sample(process_sample& a, const process_sample& b)
{
    a.resident_bytes += b.resident_bytes;
    a.cpu_seconds += b.cpu_seconds;
    a.threads += b.threads;
    a.voluntary_switches += b.voluntary_switches;
    a.involuntary_switches += b.involuntary_switches;
    a.open_fds += b.open_fds;
    a.open_sockets += b.open_sockets;
    a.walked = a.walked && b.walked;
}

std::optional<pid_t> find_listening_pid(std::uint16_t port)
{
    std::vector<std::string> wanted;
    std::string text;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        if (!read_file(table, text))
            continue;
        std::string_view rest = text;
        // The first line is the column header.
        rest.remove_prefix(std::min(rest.size(), rest.find('\n')));
        while (!rest.empty()) {
            auto end = rest.find('\n');
            auto line = rest.substr(0, end);
            rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            auto words = split_whitespace(line);
            if (words.size() < 10 || words[3] != "0A")
                continue;
            auto colon = words[1].rfind(':');
            unsigned local_port = 0;
            if (colon == std::string_view::npos || !parse_number(words[1].substr(colon + 1), local_port, 16) ||
                local_port != port || words[9] == "0")
                continue;
            wanted.push_back("socket:[" + std::string(words[9]) + "]");
        }
    }
    if (wanted.empty())
        return std::nullopt;

    directory processes("/proc");
    if (!processes.is_open())
        return std::nullopt;
    char link[128];
    for (auto name = processes.next(); !name.empty(); name = processes.next()) {
        if (!is_number(name))
            continue;
        // Other users' fd directories are unreadable without privilege; those processes are skipped.
        directory fds("/proc/" + std::string(name) + "/fd");
        if (!fds.is_open())
            continue;
        for (auto fd = fds.next(); !fd.empty(); fd = fds.next()) {
            auto target = fd_target(fds, fd, link);
            if (std::find(wanted.begin(), wanted.end(), target) != wanted.end()) {
                pid_t pid = 0;
                if (parse_number(name, pid))
                    return pid;
            }
        }
    }
    return std::nullopt;
}

std::optional<process_sample> parse_process_metrics(std::string_view exposition)
{
    process_sample s;
    bool any = false;
    bool sockets = false;
    std::uint64_t fds = 0;
    for_each_sample(exposition, [&](std::string_view name, std::string_view labels, double v) {
        auto whole = static_cast<std::uint64_t>(v);
        if (name == process_metric::resident_bytes)
            s.resident_bytes = whole;
        else if (name == process_metric::cpu_seconds)
            s.cpu_seconds = v;
        else if (name == process_metric::threads)
            s.threads = static_cast<std::uint32_t>(whole);
        else if (name == process_metric::open_fds)
            fds = whole;
        else if (name == process_metric::open_sockets) {
            s.open_sockets = static_cast<std::uint32_t>(whole);
            sockets = true;
        } else if (name == process_metric::context_switches && labels.find("\"voluntary\"") != std::string_view::npos)
            s.voluntary_switches = whole;
        else if (name == process_metric::context_switches && labels.find("\"involuntary\"") != std::string_view::npos)
            s.involuntary_switches = whole;
        else
            return;
        any = true;
    });
    if (!any)
        return std::nullopt;
    s.open_fds = static_cast<std::uint32_t>(fds);
    if (!sockets)
        s.open_sockets = s.open_fds;
    return s;
}

}  // namespace execbench::stats
