#include "execbench/load/record/profile_record.hpp"

#include "execbench/core/build_info.hpp"

#include <chrono>

namespace execbench::load {

double perf_counts::syscalls_unnamed() const
{
    double named = 0;
    for (const auto& [name, n] : syscalls)
        named += n;
    return syscalls_total > named ? syscalls_total - named : 0;
}

double profile_capture::requests() const
{
    // perf counted the server over the whole trial, and it served the background group too: a starvation
    // scenario's few foreground requests alone made its /cpu hogs read as 32 ms of CPU per request.
    double n = 0;
    auto add = [&](const group_measurement& g) { n += double(g.count.ok + g.count.error_total()); };
    for (const auto& t : run.trials) {
        add(t.measured.foreground);
        if (t.measured.background)
            add(*t.measured.background);
    }
    return n;
}

double profile_capture::requests_per_second() const
{
    double ok = 0, seconds = 0;
    for (const auto& t : run.trials) {
        ok += double(t.measured.foreground.count.ok);
        seconds += std::chrono::duration<double>(t.measured.foreground.wall).count();
    }
    return seconds > 0 ? ok / seconds : 0;
}

const profile_count* profile_record::find(std::string_view kind, std::string_view name) const
{
    for (const auto& c : counts)
        if (c.kind == kind && c.name == name)
            return &c;
    return nullptr;
}

double profile_record::trial(std::string_view name) const
{
    const auto* c = find("trial", name);
    return c ? c->total : 0;
}

std::vector<std::string> profile_record::notes() const
{
    std::vector<std::string> out;
    for (const auto& c : counts)
        if (c.kind == "note")
            out.push_back(c.name);
    return out;
}

profile_record profile_record_of(const profile_capture& c)
{
    profile_record r;
    r.run_id = c.run.run_id;
    r.started_at = c.run.started_at;
    r.git_revision = std::string(git_revision());
    r.scenario = c.run.scenario_used.name;
    r.arm = c.run.arm_name();
    r.model = c.run.server.model;
    double requests = c.requests();
    double seconds = 0;
    for (const auto& t : c.run.trials)
        seconds += std::chrono::duration<double>(t.measured.foreground.wall).count();
    std::uint64_t samples = 0;
    for (const auto& [stack, n] : c.stacks)
        samples += n;
    auto add = [&](std::string kind, std::string name, double total) {
        r.counts.push_back({std::move(kind), std::move(name), total, requests > 0 ? total / requests : 0});
    };
    r.counts.push_back({"trial", "requests", requests, 0});
    r.counts.push_back({"trial", "seconds", seconds, 0});
    r.counts.push_back({"trial", "requests_per_second", c.requests_per_second(), 0});
    r.counts.push_back({"trial", "samples", double(samples), 0});
    if (c.counts) {
        add("cpu", "cpu_micros", c.counts->task_clock_millis * 1000);
        add("switches", "context_switches", c.counts->context_switches);
        add("switches", "cpu_migrations", c.counts->cpu_migrations);
    }
    if (!c.run.trials.empty() && c.run.trials.front().server) {
        const auto& srv = *c.run.trials.front().server;
        add("switches", "voluntary", double(srv.voluntary_switches));
        add("switches", "involuntary", double(srv.involuntary_switches));
    }
    if (c.counts) {
        add("syscall", "all", c.counts->syscalls_total);
        for (const auto& [name, n] : c.counts->syscalls)
            add("syscall", name, n);
        add("syscall", "other", c.counts->syscalls_unnamed());
    }
    for (const auto& note : c.notes)
        r.counts.push_back({"note", note, 0, 0});
    return r;
}

}  // namespace execbench::load
