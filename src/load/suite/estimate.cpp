#include "execbench/load/suite/estimate.hpp"

#include "capacity_arms.hpp"

#include "execbench/core/model_names.hpp"
#include "execbench/load/scenario/open_files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace execbench::load {

namespace {

using seconds_d = std::chrono::duration<double>;

// What a server run takes beyond its warm-up, trials and pauses, fitted to the journals of the study's steps run on
// 2026-12-05/06 (control, hot-path, reactive, downstream, default, tls: 2 to 10,000 connections): starting the
// server and waiting until it answers, then stopping it, 0.2-0.6 s on the AMD machine, and connecting the load's
// connections, about 0.1 ms each (1.4 s at 10,000). The rerun of 2026-12-07 on the Intel machine (source 9e81c8d6)
// put start, stop and a burst's own overhead together at 0.11 s (the reactive step's starvation-baseline: 0.41 s a
// run around one 300 ms wait) and a warmed-up burst's at 0.24-0.32 s; 0.4 + 0.3 had planned that step 10 % over.
constexpr double start_and_stop_s = 0.25;
constexpr double per_connection_s = 0.0001;
// A burst has no length in its file: it lasts its longest wait plus its connects and the last answers. Under a model
// whose wait holds a thread, its requests wait their turn in batches of the threads (burst_waits).
constexpr double burst_s = 0.2;

/// The longest a request of `s` waits on the server: its delay, or a stream's events times their interval
/// (stream-50: 50 events 10 ms apart, 0.5 s, which the reactive step's plan had left out: 17 % under on that row).
double longest_wait_s(const scenario& s)
{
    const double stream = double(max_query_number(s, "count")) * max_query_number(s, "intervalMillis");
    return std::max<double>(max_query_number(s, "delayInMillis"), stream) / 1000.0;
}

// Over TLS: an RSA-4096 key takes bench-server about 1.5 s to make at start (the tls-storm step's rounds were 2.1-3.0 s
// over the others); each connection's full handshake costs the server about 0.5 ms (P-256), 1 ms (RSA-2048) or 5 ms
// (RSA-4096: about 210 a second, the tls step's capacity search).
double tls_start_s(const scenario& s)
{
    if (!s.tls)
        return 0;
    const double per_handshake = s.tls_key == "rsa4096" ? 0.005 : s.tls_key == "rsa2048" ? 0.001 : 0.0005;
    return (s.tls_key == "rsa4096" ? 1.5 : 0.0) + per_handshake * s.load.connections;
}

/// The threads of a model arm as its server runs: the arm's --threads, else the scenario's, else the model's
/// default (0: one per CPU).
unsigned threads_of(const scenario& s, const arm_spec& arm, const model_traits& traits)
{
    auto parse = [](const std::string& text) {
        unsigned v = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        return ec == std::errc{} && p == text.data() + text.size() ? v : 0u;
    };
    for (const auto& [name, value] : arm.options)
        if (name == "threads")
            return parse(value);
    if (auto it = s.server.options.find("threads"); it != s.server.options.end())
        return parse(it->second);
    return traits.default_threads;
}

/// How many waits a burst takes under `arm`: one, or, where a wait holds a thread, one per batch of the threads
/// (memory-in-flight's 4,000 one-second requests on the pool's 200 workers: 20 s a trial; the memory step's journal
/// says 60.9 s for three, where one wait a trial planned 4 s).
double burst_waits(const scenario& s, const arm_spec& arm)
{
    const auto* traits = traits_of(arm.model);
    if (arm.kind() != arm_kind::model || traits == nullptr || !traits->wait_holds_thread)
        return 1;
    const auto threads = threads_of(s, arm, *traits);
    const auto requests = s.load.requests > 0 ? s.load.requests : std::uint64_t{s.load.connections};
    return threads == 0 ? 1 : std::max(1.0, std::ceil(static_cast<double>(requests) / threads));
}

}  // namespace

bool self_calls_exhaust_threads(const scenario& s, const arm_spec& arm)
{
    const auto* traits = traits_of(arm.model);
    const auto depth = max_call_depth(s);
    if (arm.kind() != arm_kind::model || traits == nullptr || !traits->wait_holds_thread || depth == 0 ||
        s.server.downstream != "self")
        return false;
    const auto threads = threads_of(s, arm, *traits);
    if (threads == 0)
        return false;
    // The requests in flight at the innermost wait: an open load's rate times the wait (a rate taken from a capacity
    // search is not known before it), capped by its connections; a closed or ramped load's users, each waiting its
    // share of wait + think; a burst's connections at once.
    const double wait = longest_wait_s(s);
    const auto& l = s.load;
    double in_flight = l.connections;
    if (l.kind == shape::open)
        in_flight = std::min<double>(l.connections, l.rate * wait);
    else if (l.kind == shape::closed || l.kind == shape::ramp) {
        const double think = seconds_d(l.think_min + l.think_max).count() / 2;
        in_flight = wait + think > 0 ? l.connections * wait / (wait + think) : l.connections;
    }
    // At the ceiling itself the outer request's own work (a query, the calls' round trips) tips it over.
    return in_flight * (depth + 1) >= threads;
}

duration estimate_run(const scenario& s, unsigned trials, const arm_spec& arm)
{
    const double wait = longest_wait_s(s);
    double trial = s.load.kind == shape::burst ? burst_s + wait * burst_waits(s, arm) : seconds_d(s.load.length).count();
    // A timed background load (a storm beside measured clients) starts first and may outlast the foreground, which
    // starts after its delay.
    if (s.background && s.background->load.kind != shape::burst)
        trial = std::max(trial + seconds_d(s.background->delay).count(),
                         seconds_d(s.background->load.length).count());
    const double warmup = seconds_d(s.warmup).count();
    const auto phases = trials + (warmup > 0 ? 1u : 0u);  // each ends with its requests answered
    const auto pauses = (trials > 0 ? trials - 1 : 0) + (warmup > 0 ? 1 : 0);
    double total = warmup + trials * trial + pauses * seconds_d(s.pause).count() + start_and_stop_s +
                   per_connection_s * s.load.connections + tls_start_s(s);
    // A deadlocked phase ends when its last request has waited out the timeout (the default step's pool rows: 100 s
    // over a 30 s round with a warm-up, 67 s over an 18 s spike without), or the graceful stop when shorter.
    if (self_calls_exhaust_threads(s, arm))
        total += phases * seconds_d(std::min(s.timeout, s.graceful_stop.value_or(s.timeout))).count();
    return std::chrono::duration_cast<duration>(seconds_d(total));
}

duration estimate_search(const scenario& s, const suite_options& o, std::size_t arms)
{
    auto plan = detail::search_plan(o, s);
    if (!plan)
        return {};
    const auto& so = plan->search;
    auto log_growth = [&](double ratio) { return std::max(0.0, std::ceil(std::log(ratio) / std::log(so.growth))); };
    double widening = log_growth(std::sqrt(so.max_rps / so.start_rps));
    double bisection = std::ceil(std::log2(std::log(so.growth) / std::log(1 + so.resolution)));
    double steps = widening + bisection + (so.trials > 1 ? (so.trials - 1) * (bisection + 2) : 0);
    auto per_step = plan->step_length + plan->step_warmup + plan->step_pause;
    return std::chrono::duration_cast<duration>(per_step * steps) * std::int64_t(arms) + std::chrono::seconds{2};
}

}  // namespace execbench::load
