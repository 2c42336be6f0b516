#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/duration.hpp"
#include "execbench/load/scenario/ramp.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// One kind of request in the mix; its bytes are prepared once per run.
struct request_spec {
    std::string method = "GET";
    std::string path = "/";                                    ///< path with query, starting with '/'
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers, in order
    std::string body_file;                                     ///< as written in the scenario (may be empty)
    std::string body;                                          ///< the file's contents, loaded by the parser
    unsigned weight = 1;                                       ///< share of the mix, 1..1000
    /// In the mix from this long after the load starts (each trial's, and the warm-up's, own start).
    duration from{};
    /// Out of the mix from this long after the load starts; unset: to the end.
    std::optional<duration> until;
};

/// The HTTP a load speaks: HTTP/1.1, or HTTP/2 (h2 by ALPN over TLS, h2c with prior knowledge in cleartext).
enum class http_protocol { http1_1, h2 };
/// "http/1.1" or "h2": the scenario key "protocol"'s values and the results' `protocol` column.
std::string_view to_string(http_protocol p) noexcept;
std::optional<http_protocol> parse_http_protocol(std::string_view text) noexcept;
/// The most HTTP/2 streams a connection carries at once (scenario::streams).
inline constexpr std::uint32_t max_streams = 1024;

/// How requests are issued over time.
enum class shape { burst, closed, open, ramp };
std::string_view to_string(shape s) noexcept;
std::optional<shape> parse_shape(std::string_view text) noexcept;
/// Whether shape `s` uses the load field `field` ("rate", "requests", "duration", ...); unknown fields: true.
bool field_used_by(std::string_view field, shape s) noexcept;
/// The shapes that use `field`, for messages: "closed, open or ramp".
std::string shapes_using(std::string_view field);

/// An open load's rate as a multiple of an arm's measured capacity (`"rate": {"capacity_of": ..., "times": ...}`):
/// overload at 1.5x or 2x what each model can serve. A suite resolves it per arm from the capacity files
/// (load/results/capacity_results.hpp); until then the load's `rate` is 0.
struct rate_from_capacity {
    std::string capacity_of;  ///< the capacity scenario whose search measured the arm, e.g. "capacity-cpu"
    double times = 1;         ///< the multiple of that capacity, in (0, 100]
    double capacity_rps = 0;  ///< the arm's capacity the suite resolved it with (0: not resolved)
    std::string search;       ///< the run id of the search that measured it
};
/// "1.5 × the capacity of capacity-cpu".
std::string describe(const rate_from_capacity& r);

/// The numbers of a load shape. Which fields matter depends on `kind`; docs/scenarios.md lists them.
/// The deepest pipeline a connection carries (load_spec::pipeline).
inline constexpr std::uint32_t max_pipeline = 1024;

struct load_spec {
    shape kind = shape::closed;
    std::uint32_t connections = 0;  ///< burst: default = requests; closed/open: required; ramp: = max users
    std::uint64_t requests = 0;     ///< burst: requests in total
    double rate = 0;                ///< open: requests per second
    std::optional<rate_from_capacity> rate_from;  ///< open: the rate per arm, from its capacity (then `rate` 0)
    duration length{};              ///< closed/open/ramp: how long requests are issued
    duration think_min{};           ///< closed/ramp: pause between a response and the next request
    duration think_max{};
    ramp_profile profile = ramp_profile::smooth;
    std::uint32_t users = 0;         ///< ramp: peak virtual users
    std::uint32_t spikes = 10;       ///< ramp sharp: number of square spikes
    std::vector<ramp_stage> stages;  ///< ramp: explicit stages, or the expansion of `profile`
    /// Requests a connection carries before it closes (the last one asks `Connection: close`); 0: keep-alive
    /// for the whole trial. Connection churn, as HttpArena's limited-conn profile closes after 10.
    std::uint32_t requests_per_connection = 0;
    /// Open every connection before the load starts (burst, closed, open); false: each connects when it sends its
    /// first request, so a burst is a storm of new connections and the connects are part of its latency.
    bool preconnect = true;
    /// Requests each connection carries at once, written together and answered in order (HTTP/1.1 pipelining, as
    /// wrk's pipeline script and TechEmpower's plaintext test at 16); closed and open shapes only. 1: one at a time.
    std::uint32_t pipeline = 1;
};

/// A load that runs before and beside the measured one (e.g. 150 /cpu while 20 /io are measured).
struct background_spec {
    std::vector<request_spec> mix;
    load_spec load;
    duration delay{};  ///< extra wait after every background request has been sent, before the foreground starts
};

/// What the server under test needs; honoured by a suite runner, recorded in results context by bench-load.
struct server_spec {
    std::string downstream = "self";  ///< "self" or "separate" (a second server started by the runner)
    std::string downstream_model = "loop";
    /// "sqlite" (in the server's memory), "sqlite-file" (a fresh file per run) or "postgresql" (a throwaway
    /// cluster per run)
    std::string database = "sqlite";
    std::map<std::string, std::string> options;  ///< extra bench-server options, e.g. {"threads": "4"}
};

/// The factor a scenario's users, connections and rates were multiplied by (--scale, --fit-to-limits; load/scale.hpp):
/// 1 as written.
struct scale_label {
    double factor = 1;
    std::string decided_by;  ///< "generator", "server", "downstream" (fit to limits), "--scale", or "" when 1
    std::string unscaled;    ///< the figures as written, e.g. "20,000 peak users" ("" when 1)
    std::string reason;      ///< why a limit decided, e.g. "the server needs about 30,064 open files, may open 20,000"
};

/// The share of its timeline a scenario ran in (--time-scale; load/scale.hpp): 1 as written.
struct time_label {
    double factor = 1;
    std::string unscaled;  ///< the timeline as written, e.g. "180s" ("" when 1)
};

/// How a capacity search runs this scenario (scenario key "capacity", or bench-load's --capacity flags; unset fields
/// take the defaults of load/capacity.hpp). docs/scenarios.md lists the keys.
struct capacity_spec {
    std::optional<std::string> slo;          ///< --slo grammar, e.g. "p99<=250ms,errors=0,unsent=0"
    std::optional<std::uint32_t> connections;  ///< fixed; unset: they follow the rate
    std::optional<double> connections_per_rps;  ///< following the rate: connections per req/s
    std::optional<double> start_rate;
    std::optional<double> max_rate;
    std::optional<double> resolution_percent;
    std::optional<std::uint32_t> trials;  ///< bisections of the boundary
    std::optional<std::string> step_duration;
    std::optional<std::string> step_warmup;
    /// Fields set in `over` replace these.
    void merge(const capacity_spec& over);
};

/// A named scenario, as read from scenarios/<name>.json.
struct scenario {
    std::string name;            ///< file name without extension
    std::filesystem::path file;  ///< where it was read from (empty for ad-hoc runs)
    std::string description;
    std::vector<std::string> suites;
    std::vector<request_spec> mix;
    load_spec load;
    std::optional<background_spec> background;
    duration warmup{};
    std::uint32_t trials = 1;
    duration pause = std::chrono::seconds{1};
    duration timeout = std::chrono::seconds{60};
    duration connect_timeout = std::chrono::seconds{10};
    /// How long requests still in flight when the load ends may take before they count as interrupted (scenario
    /// key "graceful_stop", k6's gracefulStop); unset: each waits out `timeout`.
    std::optional<duration> graceful_stop;
    server_spec server;
    /// The load goes over TLS: a suite starts the server with --tls and sends to https://; bench-load wants an
    /// https:// URL.
    bool tls = false;
    /// Over TLS, each connection offers the session its slot's last connection received (--tls-resume on|off).
    bool tls_resume = true;
    /// Over TLS, the server's key: "p256", "rsa2048" or "rsa4096" (bench-server --tls-key-type; a `cmd:` arm's `{tls_key}`).
    std::string tls_key = "p256";
    /// The HTTP the load speaks (scenario key "protocol", bench-load --http2).
    http_protocol protocol = http_protocol::http1_1;
    /// HTTP/2: the requests each connection carries at once, as h2load's -m (scenario key "streams", --streams);
    /// closed, open and burst shapes. 1 under HTTP/1.1.
    std::uint32_t streams = 1;
    std::optional<capacity_spec> capacity;  ///< how a capacity search runs it (bench-load --capacity, bench-suite)
    scale_label scale;  ///< set by scale_scenario, never read from a file
    time_label time_scale;  ///< set by compress_scenario, never read from a file
};

/// The scenario's loads whose rate is a multiple of an arm's capacity: the foreground's, the background's (an
/// overload beside measured clients, e.g. a handshake storm), each resolved per arm by a suite.
std::vector<load_spec*> loads_from_capacity(scenario& s);
/// True when some load of `s` takes its rate from an arm's capacity.
bool takes_rate_from_capacity(const scenario& s) noexcept;

/// Derives a ramp's stages from its profile (or its length and peak from explicit stages) and sets its
/// connections to the peak; call again after changing a ramp's numbers.
void prepare_ramp(load_spec& l);
/// Checks cross-field rules (e.g. an open shape needs a rate); errors start with `where`. prepare() calls it.
result<void> validate(const scenario& s, std::string_view where);
/// The scenario as it runs: a ramp's stages laid out (prepare_ramp) and every rule checked (validate), once at the
/// end of each source of its figures: its file (parse_scenario), then the command line (apply_overrides). What
/// comes after keeps a prepared scenario prepared by construction (--scale rounds a count to at least 1, --shard
/// refuses a share of 0), and a run trusts it.
result<scenario> prepare(scenario s, std::string_view where);

/// One count of a load by name ("connections", "requests", "users").
struct load_count {
    std::string_view name;
    std::uint64_t value = 0;  ///< 0 where the shape does not use it
};
/// A load's counts, the one list of them: connections, requests and users (a ramp's stage targets follow users).
std::vector<load_count> load_counts(const load_spec& l);

/// How a load's figures change together: each count, and each rate (the rate, and a capacity multiple).
struct load_resize {
    std::function<std::uint64_t(std::uint64_t)> count;
    std::function<double(double)> rate;
};
/// Changes every figure of a load at once, the one place they are listed: connections, requests, users and each
/// stage's target through `r.count`, the rate and a capacity multiple through `r.rate`, then lays the ramp out again
/// (prepare_ramp). --scale multiplies a load with it, --shard divides one.
void resize_load(load_spec& l, const load_resize& r);

/// The first moment, from the load's start, at which no request of `mix` is in the mix (by their `from` and
/// `until`); nothing when some request is in it at every moment.
std::optional<duration> mix_gap(const std::vector<request_spec>& mix);

/// The connections one load opens: a burst's `connections`, by default one per request; the others' `connections`
/// (a ramp's is its peak users once prepare_ramp ran).
std::uint64_t connections_of(const load_spec& l) noexcept;
/// Peak number of sockets a scenario opens at once (foreground plus background).
std::uint64_t connections_needed(const scenario& s) noexcept;

}  // namespace execbench::load
