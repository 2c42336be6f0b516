#include "execbench/load/profile/perf_output.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace execbench::load {

namespace {

/// The characters an operator's name may consist of after `operator` (`operator()`, `operator<<=`, `operator->`).
bool operator_char(char c)
{
    return std::string_view("()<>=!+-*/%&|^~[],").find(c) != std::string_view::npos;
}

/// The frame of one `perf script` call-chain line: "\t    7f3a addr symbol+0x1c (/path/dso)".
std::string frame_of(std::string_view line)
{
    line = trim(line);
    auto space = line.find(' ');
    if (space == std::string_view::npos)
        return "[unknown]";
    auto rest = trim(line.substr(space + 1));  // after the address
    std::string_view dso;
    if (!rest.empty() && rest.back() == ')') {
        auto open = rest.rfind(" (");
        if (open != std::string_view::npos) {
            dso = rest.substr(open + 2, rest.size() - open - 3);
            rest = trim(rest.substr(0, open));
        }
    }
    // "+0x1c": the offset into the function says nothing at this resolution and would split its frame.
    if (auto plus = rest.rfind("+0x"); plus != std::string_view::npos)
        rest = rest.substr(0, plus);
    if (rest.empty() || rest == "[unknown]") {
        auto slash = dso.rfind('/');
        auto base = slash == std::string_view::npos ? dso : dso.substr(slash + 1);
        return "[" + std::string(base.empty() ? "unknown" : base) + "]";
    }
    std::string name = short_symbol(rest);
    std::replace(name.begin(), name.end(), ';', ':');  // ';' separates frames
    if (dso == "[kernel.kallsyms]")
        name += "_[k]";
    return name;
}

/// The thread's name from a sample's header, "bench-server 27527 15293.545469: 2004008 cpu-clock:ppp:" (a name
/// may hold spaces: it ends before the pid, the first all-digit word followed by the time).
std::string comm_of(std::string_view header)
{
    std::istringstream words{std::string(header)};
    std::vector<std::string> w;
    for (std::string x; words >> x;)
        w.push_back(x);
    for (std::size_t i = 1; i + 1 < w.size(); ++i) {
        auto digits = w[i].substr(0, w[i].find('/'));
        bool pid = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (pid && (w[i + 1].back() == ':' || w[i + 1].front() == '[')) {
            std::string comm;
            for (std::size_t k = 0; k < i; ++k)
                comm += (k ? " " : "") + w[k];
            return comm;
        }
    }
    return w.empty() ? std::string{"[unknown]"} : w[0];
}

}  // namespace

std::string short_symbol(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, 8, "operator") == 0 && (i + 8 < s.size()) && operator_char(s[i + 8])) {
            out += "operator";
            i += 8;
            // "operator()" and "operator[]" are whole; others are the run of operator characters before '(' / '<'.
            if (s.compare(i, 2, "()") == 0 || s.compare(i, 2, "[]") == 0) {
                out += s.substr(i, 2);
                i += 2;
            } else {
                while (i < s.size() && operator_char(s[i]) && s[i] != '(')
                    out += s[i++];
            }
            continue;
        }
        if (s.compare(i, 21, "(anonymous namespace)") == 0) {
            out += "(anonymous namespace)";
            i += 21;
            continue;
        }
        char open = s[i];
        if (open == '<' || open == '(') {
            char close = open == '<' ? '>' : ')';
            int depth = 0;
            std::size_t j = i;
            for (; j < s.size(); ++j) {
                if (s[j] == open)
                    ++depth;
                else if (s[j] == close && --depth == 0)
                    break;
            }
            if (j == s.size()) {  // unbalanced: keep the rest as it is
                out += s.substr(i);
                break;
            }
            if (open == '<')
                out += "<...>";
            i = j + 1;
            continue;
        }
        out += s[i++];
    }
    return std::string(trim(out));
}

folded_stacks collapse_perf_script(std::string_view text)
{
    folded_stacks out;
    std::string comm;
    std::vector<std::string> frames;  // leaf first
    bool in_sample = false;
    auto flush = [&] {
        if (!in_sample)
            return;
        std::string stack = comm;
        for (auto it = frames.rbegin(); it != frames.rend(); ++it)
            stack += ";" + *it;
        ++out[stack];
        frames.clear();
        in_sample = false;
    };
    std::size_t at = 0;
    while (at <= text.size()) {
        auto nl = text.find('\n', at);
        auto line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        at = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        if (trim(line).empty()) {
            flush();
            continue;
        }
        if (line.front() == '#')
            continue;
        if (line.front() == ' ' || line.front() == '\t') {
            if (in_sample)
                frames.push_back(frame_of(line));
            continue;
        }
        flush();
        comm = comm_of(line);
        std::replace(comm.begin(), comm.end(), ';', ':');
        in_sample = true;
    }
    flush();
    return out;
}

const std::vector<std::string>& counted_syscalls()
{
    static const std::vector<std::string> names{
        "accept", "accept4", "read", "write", "readv", "writev", "recvfrom", "sendto", "recvmsg", "sendmsg",
        "epoll_wait", "epoll_pwait", "epoll_ctl", "poll", "ppoll", "io_uring_enter", "futex", "sched_yield",
        "nanosleep", "clock_nanosleep", "timerfd_settime", "close", "shutdown", "setsockopt", "getsockopt", "ioctl",
        "fcntl", "openat", "newfstatat", "getrandom", "mmap", "munmap", "mprotect", "madvise", "brk"};
    return names;
}

std::string perf_stat_events()
{
    std::string out = "task-clock,context-switches,cpu-migrations,raw_syscalls:sys_enter";
    for (const auto& name : counted_syscalls())
        out += ",syscalls:sys_enter_" + name;
    return out;
}

result<perf_counts> parse_perf_stat(std::string_view text)
{
    perf_counts out;
    bool counted = false;
    std::size_t at = 0;
    unsigned line_number = 0;
    while (at < text.size()) {
        auto nl = text.find('\n', at);
        auto line = trim(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
        at = nl == std::string_view::npos ? text.size() : nl + 1;
        ++line_number;
        if (line.empty() || line.front() == '#')
            continue;
        // value,unit,event,run time,percentage,...
        auto f = split_fields(line, ',');
        if (f.size() < 3)
            return fail("perf stat line " + std::to_string(line_number) + ": not perf's CSV: '" + std::string(line) +
                        "'");
        double value = 0;
        if (f[0].empty() || f[0].front() != '<') {
            auto [p, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), value);
            if (ec != std::errc{} || p != f[0].data() + f[0].size())
                return fail("perf stat line " + std::to_string(line_number) + ": '" + std::string(f[0]) +
                            "' is not a count");
            counted = true;
        }
        auto event = f[2];
        if (auto colon = event.find(":u"); colon != std::string_view::npos && colon + 2 == event.size())
            event = event.substr(0, colon);  // perf adds ":u" when it may count user space only
        constexpr std::string_view enter = "syscalls:sys_enter_";
        if (event == "task-clock")
            out.task_clock_millis = value;
        else if (event == "context-switches" || event == "cs")
            out.context_switches = value;
        else if (event == "cpu-migrations" || event == "migrations")
            out.cpu_migrations = value;
        else if (event == "raw_syscalls:sys_enter")
            out.syscalls_total = value;
        else if (event.substr(0, enter.size()) == enter && value > 0)
            out.syscalls.emplace_back(std::string(event.substr(enter.size())), value);
    }
    if (!counted)
        return fail("perf stat counted nothing");
    if (out.syscalls_total == 0)
        for (const auto& [name, n] : out.syscalls)
            out.syscalls_total += n;
    std::stable_sort(out.syscalls.begin(), out.syscalls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

}  // namespace execbench::load
