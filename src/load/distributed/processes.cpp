#include "execbench/load/distributed/processes.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/run_command.hpp"
#include "execbench/load/distributed/shard.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace execbench::load {

namespace {

/// Options the parent of `--processes` answers itself; each takes a value.
constexpr std::string_view parent_valued[] = {"--processes", "--out",      "--hlog",         "--format", "--slo",
                                              "--shard",     "--start-at", "--shard-trials", "--cpus"};
/// Flags the parent answers itself.
constexpr std::string_view parent_flags[] = {"--quiet"};

/// Starts one shard with its standard output on /dev/null; returns its pid.
result<pid_t> spawn_shard(const std::filesystem::path& program, const std::vector<std::string>& args)
{
    std::vector<std::string> argv{program.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto pid = spawn(argv, {{"/dev/null", {}}, true, false});
    if (!pid)
        return fail("a shard: " + pid.err().message);
    return *pid;
}

/// Waits for every shard; the first stop request is passed on to them as SIGINT (they end their trial early and
/// still write what they measured). Returns each shard's exit code, -1 for one ended by a signal.
std::vector<int> wait_for_shards(const std::vector<pid_t>& pids, const std::atomic<bool>* stop)
{
    std::vector<int> codes(pids.size(), -1);
    std::vector<bool> done(pids.size(), false);
    bool forwarded = false;
    while (std::find(done.begin(), done.end(), false) != done.end()) {
        for (std::size_t i = 0; i < pids.size(); ++i) {
            if (done[i])
                continue;
            int status = 0;
            auto r = ::waitpid(pids[i], &status, WNOHANG);
            if (r == pids[i] || (r < 0 && errno != EINTR)) {
                done[i] = true;
                codes[i] = r == pids[i] && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
        }
        if (stop && stop->load() && !forwarded) {
            forwarded = true;
            for (std::size_t i = 0; i < pids.size(); ++i)
                if (!done[i])
                    ::kill(pids[i], SIGINT);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return codes;
}

}  // namespace

std::vector<std::string> shard_arguments(const std::vector<std::string>& args)
{
    auto named = [](std::string_view arg, std::string_view option) {
        return arg == option ||
               (arg.size() > option.size() && arg.substr(0, option.size()) == option && arg[option.size()] == '=');
    };
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (std::any_of(std::begin(parent_flags), std::end(parent_flags), [&](auto o) { return a == o; }))
            continue;
        auto valued =
            std::find_if(std::begin(parent_valued), std::end(parent_valued), [&](auto o) { return named(a, o); });
        if (valued != std::end(parent_valued)) {
            if (a == *valued)
                ++i;  // its value follows as the next argument
            continue;
        }
        out.push_back(a);
    }
    out.emplace_back("--quiet");
    return out;
}

std::vector<std::string> split_cpus(const cpu_list& cpus, unsigned shards)
{
    if (cpus.size() < shards)
        return std::vector<std::string>(shards, format_cpu_list(cpus));
    std::vector<std::string> out;
    std::size_t next = 0;
    for (unsigned i = 0; i < shards; ++i) {
        auto n = static_cast<std::size_t>(shard_share(cpus.size(), {i, shards}));
        out.push_back(format_cpu_list(cpu_list(cpus.begin() + static_cast<std::ptrdiff_t>(next),
                                               cpus.begin() + static_cast<std::ptrdiff_t>(next + n))));
        next += n;
    }
    return out;
}

result<run_record> run_in_processes(const scenario& s, const run_options& options, const run_target& t,
                                    const process_run_options& p)
{
    // Every shard must get a share: the last shard's is the smallest.
    if (auto last = shard_scenario(s, {p.processes - 1, p.processes}); !last)
        return last.err();
    scratch_dir scratch("bench-load-shards");
    if (scratch.path().empty())
        return fail("cannot create a temporary folder for the shards' results: " + std::string(std::strerror(errno)));

    auto cpu_before = read_cpu_times();
    run_record out = start_run_record(s, options, t);
    out.threads = std::max(1u, options.threads) * p.processes;
    auto start_at = epoch_millis_now() + p.start_delay.count();
    std::vector<pid_t> pids;
    std::vector<std::filesystem::path> files;
    for (unsigned i = 0; i < p.processes; ++i) {
        files.push_back(scratch.path() / ("shard-" + std::to_string(i) + ".trials"));
        auto args = p.args;
        for (std::string extra : {std::string("--shard"), format_shard({i, p.processes}), std::string("--start-at"),
                                  std::to_string(start_at), std::string("--shard-trials"), files.back().string()})
            args.push_back(std::move(extra));
        if (!p.shard_cpus.empty())
            args.insert(args.end(), {"--cpus", p.shard_cpus[i]});
        auto pid = spawn_shard(p.program, args);
        if (!pid) {
            for (auto started : pids)
                ::kill(started, SIGINT);
            (void)wait_for_shards(pids, nullptr);
            return pid.err();
        }
        pids.push_back(*pid);
    }
    auto codes = wait_for_shards(pids, options.stop);

    for (unsigned i = 0; i < p.processes; ++i) {
        shard_spec shard{i, p.processes};
        auto text = read_file(files[i]);
        if (!text)
            return fail("shard " + format_shard(shard) + " wrote no results (exit code " + std::to_string(codes[i]) +
                        "; its message is above)");
        auto trials = parse_shard_trials(*text);
        if (!trials)
            return fail("shard " + format_shard(shard) + "'s results: " + trials.err().message);
        merge_shard_trials(out.trials, *trials, shard);
    }
    bool stopped = options.stop && options.stop->load();
    out.partial = stopped || out.trials.size() < s.trials ||
                  std::any_of(out.trials.begin(), out.trials.end(), [](const auto& t) { return t.measured.stopped; });
    finish_run_record(out, cpu_before);
    return out;
}

}  // namespace execbench::load
