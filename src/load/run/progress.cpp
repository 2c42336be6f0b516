#include "execbench/load/run/progress.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <sched.h>
#include <unistd.h>

namespace execbench::load {

progress_printer::progress_printer(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) == 1) {}

void progress_printer::clear()
{
    if (tty_ && bar_shown_) {
        std::fputs("\r\033[K", out_);
        std::fflush(out_);
        bar_shown_ = false;
    }
}

void progress_printer::operator()(const progress_event& ev)
{
    using phase = progress_event::phase;
    if (tty_) {
        if (ev.what == phase::done) {
            if (bar_shown_)
                std::fputs("\r\033[K", out_);
            bar_shown_ = false;
            std::fflush(out_);
            return;
        }
        const char* name = ev.what == phase::warmup ? "warm-up" : ev.what == phase::pause ? "pause" : "trial";
        // A 20-cell bar of the run's time so far against its estimated total.
        double total = std::chrono::duration<double>(ev.elapsed + ev.remaining).count();
        double frac = total > 0 ? std::chrono::duration<double>(ev.elapsed).count() / total : 0;
        int cells = static_cast<int>(frac * 20);
        std::string bar(static_cast<std::size_t>(std::clamp(cells, 0, 20)), '#');
        bar.resize(20, '.');
        std::fprintf(out_, "\r\033[K%s [%s] %s %u/%u elapsed %s left ~%s %.0f req/s errors %llu", ev.scenario.c_str(),
                     bar.c_str(), name, ev.trial, ev.trials, clock_text(ev.elapsed).c_str(),
                     clock_text(ev.remaining).c_str(), ev.live_rps, static_cast<unsigned long long>(ev.errors));
        bar_shown_ = true;
        std::fflush(out_);
        return;
    }
    if (ev.what == phase::trial_done) {
        std::fprintf(out_, "%s %s: trial %u/%u done, ok=%llu errors=%llu, elapsed %s\n", ev.label.c_str(),
                     ev.scenario.c_str(), ev.trial, ev.trials, static_cast<unsigned long long>(ev.ok),
                     static_cast<unsigned long long>(ev.errors), clock_text(ev.elapsed).c_str());
        std::fflush(out_);
    }
}

namespace {

std::string number(double v)
{
    return significant(v, 6);
}

std::string shape_body(const load_spec& l);

/// The shape as the banner says it, and how long a connection lives when the scenario churns them.
std::string shape_text(const load_spec& l)
{
    auto text = shape_body(l);
    if (l.requests_per_connection != 0)
        text += ", each connection closed after " + std::to_string(l.requests_per_connection) + " request" +
                (l.requests_per_connection == 1 ? "" : "s");
    if (l.pipeline > 1)
        text += ", " + std::to_string(l.pipeline) + " requests pipelined on each connection";
    return text;
}

std::string shape_body(const load_spec& l)
{
    auto c = std::to_string(l.connections);
    auto think = l.think_max.count() > 0
                     ? ", think " + format_duration(l.think_min) +
                           (l.think_max != l.think_min ? ".." + format_duration(l.think_max) : std::string{})
                     : std::string{};
    switch (l.kind) {
    case shape::burst:
        return "burst of " + std::to_string(l.requests) + " requests on " + std::to_string(connections_of(l)) +
               " connections";
    case shape::closed: return "closed loop on " + c + " connections for " + format_duration(l.length) + think;
    case shape::open:
        return "open loop at " + number(l.rate) + " req/s on " + c + " connections for " + format_duration(l.length);
    case shape::ramp:
        return "ramp (" + std::string(to_string(l.profile)) + ") to " + std::to_string(l.users) + " users over " +
               format_duration(l.length) + think;
    }
    return "?";
}

}  // namespace

std::string affinity_list()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return "?";
    std::string out;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            ++last;
        out += (out.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
        cpu = last;
    }
    return out;
}

std::string format_banner(const scenario& s, const run_options& options, const target& t, const observed_server& server,
                          std::string_view load)
{
    std::string out = s.name + ": ";
    if (!load.empty()) {
        out += std::string(load) + "; ";
    } else {
        out += shape_text(s.load);
        if (s.background)
            out += ", beside a background " + shape_text(s.background->load);
        out += "; warm-up " + format_duration(s.warmup) + ", " + std::to_string(s.trials) +
               (s.trials == 1 ? " trial" : " trials") + ", ";
    }
    out +=
        std::to_string(std::max(1u, options.threads)) + (options.threads > 1 ? " threads" : " thread") + "\n  target ";
    const auto base = std::string(t.scheme()) + "://" + t.host_header + t.base_path;
    if (s.mix.size() == 1)
        out += s.mix.front().method + " " + base + s.mix.front().path + default_delay_note(s.mix.front().path);
    else
        out += std::to_string(s.mix.size()) + " requests in the mix at " + base;
    if (t.tls)
        out += std::string(" (TLS, session resumption ") + (s.tls_resume ? "on" : "off") +
               (t.tls->options().verify ? ", certificate checked)" : ", certificate not checked)");
    if (s.protocol == http_protocol::h2)
        out += std::string(t.tls ? " over HTTP/2 (h2 by ALPN), " : " over HTTP/2 (h2c, prior knowledge), ") +
               std::to_string(s.streams) + (s.streams == 1 ? " stream" : " streams") + " per connection";
    out += "; server " + server.model + (server.health_json.empty() ? " (no /health answer)" : "") + ", pid " +
           (server.pid ? std::to_string(*server.pid) : std::string("unknown")) + "; load CPUs " + affinity_list();
    return out;
}

}  // namespace execbench::load
