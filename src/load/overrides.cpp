#include "execbench/load/overrides.hpp"

#include "execbench/load/scale.hpp"

#include <fstream>
#include <sstream>

namespace execbench::load {

scenario ad_hoc_scenario()
{
    scenario s;
    s.name = "ad-hoc";
    s.description = "ad-hoc run from command-line flags";
    s.mix.push_back(request_spec{});
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

result<bool> apply_overrides(scenario& s, const overrides& o)
{
    if (o.path || o.method || o.body_file || !o.headers.empty()) {
        // Any request flag describes the one request of the run, starting from the scenario's first request.
        request_spec r = s.mix.empty() ? request_spec{} : s.mix.front();
        if (o.path) {
            if (o.path->empty() || o.path->front() != '/')
                return fail("--path: expected a path starting with '/', e.g. /io?delayInMillis=300");
            r.path = *o.path;
        }
        if (o.method)
            r.method = *o.method;
        if (o.body_file) {
            std::ifstream in(*o.body_file, std::ios::binary);
            if (!in)
                return fail("--body-file: cannot read '" + o.body_file->string() + "'");
            std::ostringstream ss;
            ss << in.rdbuf();
            r.body = ss.str();
            r.body_file = o.body_file->string();
            if (o.body_file->extension() == ".json")
                r.headers.emplace_back("Content-Type", "application/json");
        }
        for (const auto& h : o.headers) {
            auto colon = h.find(':');
            if (colon == std::string::npos || colon == 0 || h.find_first_of("\r\n") != std::string::npos)
                return fail("--header: expected \"Name: value\", got '" + h + "'");
            auto value = h.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            r.headers.emplace_back(h.substr(0, colon), value);
        }
        r.weight = 1;
        s.mix = {r};
    }
    if (o.shape) {
        auto sh = parse_shape(*o.shape);
        if (!sh)
            return fail("--shape: expected one of burst, closed, open, ramp");
        if (*sh != s.load.kind) {
            s.load.kind = *sh;
            if (*sh == shape::ramp && s.load.users == 0)
                s.load.users = s.load.connections;
            if (*sh == shape::burst && s.load.requests == 0)
                s.load.requests = s.load.connections;
        }
    }
    if (o.connections) {
        if (*o.connections == 0)
            return fail("--connections: expected at least 1");
        s.load.connections = *o.connections;
        s.load.users = *o.connections;
    }
    if (o.requests) {
        if (*o.requests == 0)
            return fail("--requests: expected at least 1");
        s.load.requests = *o.requests;
        if (!o.connections)
            s.load.connections = static_cast<std::uint32_t>(std::min<std::uint64_t>(*o.requests, s.load.connections ? s.load.connections : *o.requests));
    }
    if (o.rate) {
        if (!(*o.rate > 0))
            return fail("--rate: expected requests per second greater than 0");
        s.load.rate = *o.rate;
    }
    if (o.duration) {
        auto d = flag_duration("--duration", *o.duration);
        if (!d)
            return d.err();
        s.load.length = *d;
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
        s.load.think_min = *lo;
        s.load.think_max = *hi;
    }
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
    if (s.load.kind == shape::ramp && s.load.profile == ramp_profile::stages &&
        (o.duration || o.connections || o.shape)) {
        s.load.profile = ramp_profile::smooth;  // flags describe a peak and a length, not stages
    }
    if (s.load.kind == shape::ramp && s.load.profile != ramp_profile::stages && s.load.think_max.count() == 0 &&
        !o.think && o.shape) {
        s.load.think_min = std::chrono::seconds{1};
        s.load.think_max = std::chrono::seconds{3};
    }
    prepare_ramp(s.load);
    if (auto ok = validate(s, "command line"); !ok || !o.scale)
        return ok;
    auto scaled = scale_scenario(std::move(s), *o.scale);
    if (!scaled)
        return scaled.err();
    s = std::move(*scaled);
    return true;
}

}  // namespace execbench::load
