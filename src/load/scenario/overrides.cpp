#include "execbench/load/scenario/overrides.hpp"

#include "execbench/core/file.hpp"
#include "execbench/load/scenario/scale.hpp"

namespace execbench::load {

scenario ad_hoc_scenario()
{
    scenario s;
    s.name = "ad-hoc";
    s.description = "ad-hoc run from command-line flags";
    request_spec r;
    r.path = "/epoch-millis";  // bench-server answers it; "/" is a 404 there
    s.mix.push_back(std::move(r));
    s.load.kind = shape::closed;
    s.load.connections = 10;
    s.load.length = std::chrono::seconds{10};
    s.pause = std::chrono::seconds{1};
    return s;
}

namespace {

result<duration> flag_duration(const char* flag, const std::string& text)
{
    auto d = parse_duration(text);
    if (!d)
        return fail(std::string(flag) + ": " + d.err().message);
    return d;
}

}  // namespace

namespace {

/// The load flags whose use depends on the shape, with the scenario field each one sets.
struct shape_flag {
    const char* flag;
    const char* field;
    bool set;
};

std::vector<shape_flag> shape_flags(const overrides& o)
{
    return {{"--requests", "requests", o.requests.has_value()},
            {"--rate", "rate", o.rate.has_value()},
            {"--duration", "duration", o.duration.has_value()},
            {"--think", "think", o.think.has_value()},
            {"--pipeline", "pipeline", o.pipeline.has_value()},
            {"--time-scale", "duration", o.time_scale.has_value()}};
}

/// The shape a run gets: --shape, else implied by --rate (open, wrk2's -R) or --requests (burst, hey's -n) on an
/// ad-hoc run, whose closed loop is only a default; else the scenario's.
shape effective_shape(const scenario& s, const overrides& o, std::vector<std::string>& notes)
{
    if (o.shape) {
        if (auto sh = parse_shape(*o.shape))
            return *sh;
    }
    if (is_ad_hoc(s)) {
        if (o.rate && !o.requests) {
            notes.push_back("--rate implies --shape open (a constant arrival rate, as wrk2's -R)");
            return shape::open;
        }
        if (o.requests && !o.rate && !o.duration) {
            const std::uint64_t connections = o.connections.value_or(s.load.connections);
            if (connections >= *o.requests) {
                notes.push_back("--requests implies --shape burst (all requests at once, as hey's -n)");
            } else {
                // The wait for a free connection is the client's queue, and no latency figure holds it.
                const auto n = std::to_string(*o.requests);
                const auto c = std::to_string(connections);
                notes.push_back("--requests implies --shape burst (as hey's -n): " + n + " requests on " + c +
                                " connections, " + c + " at a time; each latency counts from the request's own "
                                "send, so the wait for a free connection is not in it (--connections " + n +
                                " sends them all at once)");
            }
            return shape::burst;
        }
    }
    return s.load.kind;
}

/// "command line: load.rate: missing; ..." -> "--rate: missing; ...": errors name the flag the user can change.
std::string flag_wording(const std::string& message)
{
    constexpr std::string_view prefix = "command line: load.";
    // The scenario's top-level "streams" is --streams.
    constexpr std::string_view streams = "command line: streams:";
    if (message.compare(0, streams.size(), streams) == 0)
        return "--streams:" + message.substr(streams.size());
    if (message.compare(0, prefix.size(), prefix) != 0)
        return message;
    auto rest = message.substr(prefix.size());
    auto colon = rest.find(':');
    auto field = rest.substr(0, colon);
    if (field == "users")
        field = "connections";  // a ramp's peak users come from --connections
    else if (field == "stages")
        field = "duration";
    return "--" + field + rest.substr(colon);
}

}  // namespace

bool is_ad_hoc(const scenario& s) noexcept
{
    return s.file.empty();
}

std::vector<std::string> unused_flags(const scenario& s, const overrides& o)
{
    std::vector<std::string> out;
    for (const auto& f : shape_flags(o))
        if (f.set && !field_used_by(f.field, s.load.kind))
            out.emplace_back(f.flag);
    return out;
}

overrides used_by(const scenario& s, overrides o)
{
    for (const auto& flag : unused_flags(s, o)) {
        if (flag == "--requests")
            o.requests.reset();
        else if (flag == "--rate")
            o.rate.reset();
        else if (flag == "--duration")
            o.duration.reset();
        else if (flag == "--think")
            o.think.reset();
        else if (flag == "--pipeline")
            o.pipeline.reset();
        else if (flag == "--time-scale")
            o.time_scale.reset();
    }
    return o;
}

namespace {

/// The request flags describe the run's one request, starting from the scenario's first.
result<request_spec> overridden_request(const scenario& s, const overrides& o)
{
    request_spec r = s.mix.empty() ? request_spec{} : s.mix.front();
    if (o.path) {
        if (o.path->empty() || o.path->front() != '/')
            return fail("--path: expected a path starting with '/', e.g. /io?delayInMillis=300");
        r.path = *o.path;
    }
    if (o.method)
        r.method = *o.method;
    if (o.body_file) {
        auto body = read_file(*o.body_file);
        if (!body)
            return fail("--body-file: cannot read '" + o.body_file->string() + "'");
        r.body = std::move(*body);
        r.body_file = o.body_file->string();
        if (o.body_file->extension() == ".json")
            r.headers.emplace_back("Content-Type", "application/json");
    }
    for (const auto& h : o.headers) {
        // "http://host/path" has a colon too: taken as a header named "http", a URL given after -H would be dropped
        // and the run would go to the default target.
        if (h.rfind("http://", 0) == 0 || h.rfind("https://", 0) == 0)
            return fail("--header: '" + h + "' is a URL, not \"Name: value\"; -H takes one header per use, and the "
                        "URL goes last or after --url");
        auto colon = h.find(':');
        if (colon == std::string::npos || colon == 0 || h.find_first_of("\r\n") != std::string::npos ||
            h.find_first_of(" \t/") < colon)
            return fail("--header: expected \"Name: value\", got '" + h + "'");
        auto value = h.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        r.headers.emplace_back(h.substr(0, colon), value);
    }
    r.weight = 1;
    return r;
}

/// The load's figures: connections, requests, rate, length, think time and pipeline depth.
result<void> override_load(load_spec& l, const overrides& o)
{
    if (o.connections) {
        if (*o.connections == 0)
            return fail("--connections: expected at least 1");
        l.connections = *o.connections;
        l.users = *o.connections;
    }
    if (o.requests) {
        if (*o.requests == 0)
            return fail("--requests: expected at least 1");
        l.requests = *o.requests;
        if (!o.connections)
            l.connections = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(*o.requests, l.connections ? l.connections : *o.requests));
    }
    if (o.rate) {
        if (!(*o.rate > 0))
            return fail("--rate: expected requests per second greater than 0");
        l.rate = *o.rate;
        l.rate_from.reset();
    }
    if (o.duration) {
        auto d = flag_duration("--duration", *o.duration);
        if (!d)
            return d.err();
        // Said here: the scenario check would call a zero length "missing", which is true only of a file.
        if (d->count() <= 0)
            return fail("--duration: " + *o.duration + " is not a duration greater than 0");
        l.length = *d;
    }
    if (o.think) {
        auto dots = o.think->find("..");
        auto lo = flag_duration("--think", o.think->substr(0, dots));
        if (!lo)
            return lo.err();
        auto hi = dots == std::string::npos ? lo : flag_duration("--think", o.think->substr(dots + 2));
        if (!hi)
            return hi.err();
        if (*hi < *lo)
            return fail("--think: expected min..max with min <= max");
        l.think_min = *lo;
        l.think_max = *hi;
    }
    if (o.pipeline) {
        if (*o.pipeline < 1 || *o.pipeline > max_pipeline)
            return fail("--pipeline: expected requests per connection in 1.." + std::to_string(max_pipeline));
        l.pipeline = *o.pipeline;
    }
    if (o.reconnect_every) {
        if (*o.reconnect_every < 1 || *o.reconnect_every > 1'000'000)
            return fail("--reconnect-every: expected requests per connection in 1..1000000 (1: a new connection "
                        "for every request)");
        l.requests_per_connection = *o.reconnect_every;
    }
    return {};
}

/// The run's timing around the load: trials, warm-up, timeout and pause.
result<void> override_timing(scenario& s, const overrides& o)
{
    if (o.trials) {
        if (*o.trials < 1 || *o.trials > 1000)
            return fail("--trials: expected an integer in 1..1000");
        s.trials = *o.trials;
    }
    if (o.warmup) {
        auto d = flag_duration("--warmup", *o.warmup);
        if (!d)
            return d.err();
        s.warmup = *d;
    }
    if (o.timeout) {
        auto d = flag_duration("--timeout", *o.timeout);
        if (!d)
            return d.err();
        if (d->count() <= 0)
            return fail("--timeout: expected a duration greater than 0");
        s.timeout = *d;
    }
    if (o.pause) {
        auto d = flag_duration("--pause", *o.pause);
        if (!d)
            return d.err();
        s.pause = *d;
    }
    if (o.tls_resume) {
        if (*o.tls_resume != "on" && *o.tls_resume != "off")
            return fail("--tls-resume: '" + *o.tls_resume + "': expected on or off");
        s.tls_resume = *o.tls_resume == "on";
    }
    return {};
}

/// The HTTP the load speaks and its streams, checked here so that each error names the flag.
result<void> override_protocol(scenario& s, const overrides& o)
{
    if (o.http2)
        s.protocol = http_protocol::h2;
    const bool h2 = s.protocol == http_protocol::h2;
    if (h2 && o.pipeline)
        return fail("--pipeline: HTTP/1.1 pipelining, not with " +
                    std::string(o.http2 ? "--http2" : "the scenario's \"protocol\": \"h2\"") +
                    "; HTTP/2 carries several requests on a connection at once with --streams N");
    if (h2 && o.reconnect_every)
        return fail("--reconnect-every: HTTP/1.1's churn (its last request asks Connection: close), not with --http2");
    if (o.streams) {
        if (!h2)
            return fail("--streams: HTTP/2's concurrent streams per connection: add --http2 (HTTP/1.1 carries "
                        "several requests at once with --pipeline)");
        if (*o.streams < 1 || *o.streams > max_streams)
            return fail("--streams: expected concurrent streams per connection in 1.." + std::to_string(max_streams));
        s.streams = *o.streams;
    }
    return {};
}

/// A ramp whose shape or figures the flags changed: flags describe a peak and a length, not stages, and a ramp made
/// from another shape gets the ramp's usual think time.
void settle_ramp(scenario& s, const overrides& o, bool shape_changed)
{
    if (s.load.kind != shape::ramp)
        return;
    if (s.load.profile == ramp_profile::stages && (o.duration || o.connections || shape_changed))
        s.load.profile = ramp_profile::smooth;
    if (s.load.profile != ramp_profile::stages && s.load.think_max.count() == 0 && !o.think && shape_changed) {
        s.load.think_min = std::chrono::seconds{1};
        s.load.think_max = std::chrono::seconds{3};
    }
}

}  // namespace

result<std::vector<std::string>> apply_overrides(scenario& s, const overrides& o)
{
    std::vector<std::string> notes;
    if (o.shape && !parse_shape(*o.shape))
        return fail("--shape: '" + *o.shape + "' is not a shape; expected one of burst, closed, open, ramp");
    const shape target_shape = effective_shape(s, o, notes);
    // A flag the shape does not use would be dropped silently: the same mistake the scenario reader rejects.
    for (const auto& f : shape_flags(o)) {
        if (f.set && !field_used_by(f.field, target_shape))
            return fail(std::string(f.flag) + ": not used by shape " + std::string(to_string(target_shape)) +
                        "; add --shape " + shapes_using(f.field));
    }
    if (o.path || o.method || o.body_file || !o.headers.empty()) {
        auto r = overridden_request(s, o);
        if (!r)
            return r.err();
        s.mix = {std::move(*r)};
    }
    const bool shape_changed = target_shape != s.load.kind;
    if (shape_changed) {
        s.load.kind = target_shape;
        if (target_shape == shape::ramp && s.load.users == 0)
            s.load.users = s.load.connections;
        if (target_shape == shape::burst && s.load.requests == 0)
            s.load.requests = s.load.connections;
    }
    if (auto l = override_load(s.load, o); !l)
        return l.err();
    if (auto t = override_timing(s, o); !t)
        return t.err();
    if (auto p = override_protocol(s, o); !p)
        return p.err();
    settle_ramp(s, o, shape_changed);
    auto prepared = prepare(s, "command line");  // a copy: on failure the caller keeps what the flags made
    if (!prepared)
        return fail(flag_wording(prepared.err().message));
    s = std::move(*prepared);
    if (o.scale) {
        auto scaled = scale_scenario(std::move(s), *o.scale);
        if (!scaled)
            return scaled.err();
        s = std::move(*scaled);
    }
    if (o.time_scale) {
        auto compressed = compress_scenario(std::move(s), *o.time_scale);
        if (!compressed)
            return compressed.err();
        s = std::move(*compressed);
    }
    return notes;
}

result<std::vector<std::string>> check_suite_overrides(const std::vector<scenario>& scenarios, const overrides& o)
{
    std::vector<std::string> notes;
    auto names = [](const std::vector<const scenario*>& list) {
        std::string out;
        for (const auto* s : list)
            out += (out.empty() ? "" : ", ") + s->name + " (" + std::string(to_string(s->load.kind)) + ")";
        return out;
    };
    for (const auto& f : shape_flags(o)) {
        if (!f.set)
            continue;
        std::vector<const scenario*> using_it, not_using;
        for (const auto& s : scenarios)
            (field_used_by(f.field, s.load.kind) ? using_it : not_using).push_back(&s);
        if (using_it.empty())
            return fail(std::string(f.flag) + ": not used by any selected scenario: " + names(not_using) +
                        "; it applies to shape " + shapes_using(f.field));
        if (!not_using.empty())
            notes.push_back(std::string(f.flag) + " applies to " + std::to_string(using_it.size()) + " of " +
                            std::to_string(scenarios.size()) + " scenarios; not to " + names(not_using));
    }
    for (auto s : scenarios) {
        auto applied = apply_overrides(s, used_by(s, o));
        if (!applied)
            return applied.err();
    }
    return notes;
}

}  // namespace execbench::load
