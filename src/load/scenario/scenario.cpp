#include "execbench/load/scenario/scenario.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>

namespace execbench::load {

namespace {

constexpr shape every_shape[] = {shape::burst, shape::closed, shape::open, shape::ramp};

}  // namespace

std::string_view to_string(shape s) noexcept
{
    switch (s) {
    case shape::burst: return "burst";
    case shape::closed: return "closed";
    case shape::open: return "open";
    case shape::ramp: return "ramp";
    }
    return "?";
}

std::optional<shape> parse_shape(std::string_view text) noexcept
{
    for (auto s : every_shape)
        if (to_string(s) == text)
            return s;
    return std::nullopt;
}

std::string_view to_string(http_protocol p) noexcept
{
    return p == http_protocol::h2 ? "h2" : "http/1.1";
}

std::optional<http_protocol> parse_http_protocol(std::string_view text) noexcept
{
    for (auto p : {http_protocol::http1_1, http_protocol::h2})
        if (to_string(p) == text)
            return p;
    return std::nullopt;
}

namespace {

/// Which load fields each shape uses (docs/scenarios.md has the same table).
struct field_rule {
    std::string_view field;
    std::vector<shape> shapes;
};
const field_rule field_rules[] = {
    {"requests", {shape::burst}},
    {"rate", {shape::open}},
    {"duration", {shape::closed, shape::open, shape::ramp}},
    {"think", {shape::closed, shape::ramp}},
    {"profile", {shape::ramp}},
    {"users", {shape::ramp}},
    {"spikes", {shape::ramp}},
    {"stages", {shape::ramp}},
    {"connections", {shape::burst, shape::closed, shape::open}},
    {"preconnect", {shape::burst, shape::closed, shape::open}},
    {"pipeline", {shape::closed, shape::open}},
};

}  // namespace

bool field_used_by(std::string_view field, shape s) noexcept
{
    for (const auto& rule : field_rules)
        if (rule.field == field)
            return std::find(rule.shapes.begin(), rule.shapes.end(), s) != rule.shapes.end();
    return true;
}

std::string shapes_using(std::string_view field)
{
    std::vector<std::string_view> names;
    for (auto s : every_shape)
        if (field_used_by(field, s))
            names.push_back(to_string(s));
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
    return out;
}

std::string describe(const rate_from_capacity& r)
{
    return significant(r.times, 6) + " × the capacity of " + r.capacity_of;
}

std::uint64_t connections_of(const load_spec& l) noexcept
{
    return l.kind == shape::burst && l.connections == 0 ? l.requests : l.connections;
}

std::uint64_t connections_needed(const scenario& s) noexcept
{
    auto one = [](const load_spec& l) -> std::uint64_t {
        if (l.kind != shape::ramp)
            return connections_of(l);
        double peak = l.users;
        for (const auto& st : l.stages)
            peak = std::max(peak, double(st.target));
        return static_cast<std::uint64_t>(peak);
    };
    return one(s.load) + (s.background ? one(s.background->load) : 0);
}

std::optional<duration> mix_gap(const std::vector<request_spec>& mix)
{
    // Walks forward from 0: each step jumps to the latest end among the requests in the mix at that moment.
    duration at{};
    for (;;) {
        std::optional<duration> reach;
        bool active = false;
        for (const auto& r : mix) {
            if (r.from > at || (r.until && *r.until <= at))
                continue;
            if (!r.until)
                return std::nullopt;
            active = true;
            reach = std::max(reach.value_or(at), *r.until);
        }
        if (!active)
            return at;
        at = *reach;
    }
}

namespace {

result<void> validate_mix(const std::vector<request_spec>& mix, const std::string& where, const std::string& path)
{
    if (mix.empty())
        return fail(where + ": " + path + ": expected at least one request");
    if (auto gap = mix_gap(mix))
        return fail(where + ": " + path + ": no request is in the mix from " + format_duration(*gap) +
                    " on; leave one request without \"until\", or have another start (\"from\") where one ends");
    return {};
}

result<void> validate_load(const load_spec& l, const std::string& where, const std::string& path)
{
    auto err = [&](const std::string& field, const std::string& what) {
        return fail(where + ": " + path + "." + field + ": " + what);
    };
    auto shape_name = std::string(to_string(l.kind));
    switch (l.kind) {
    case shape::burst:
        if (l.requests == 0)
            return err("requests", "missing; shape burst needs the number of requests (1..1000000000)");
        if (l.connections > l.requests)
            return err("connections", "expected at most as many connections as requests");
        break;
    case shape::closed:
    case shape::open:
        if (l.connections == 0)
            return err("connections", "missing; shape " + shape_name + " needs a number of connections");
        if (l.length.count() <= 0)
            return err("duration", "missing; shape " + shape_name + " needs a duration greater than 0");
        if (l.kind == shape::open && l.rate <= 0 && !l.rate_from)
            return err("rate", "missing; shape open needs a rate in requests per second");
        // Churn's last request asks the server to close: requests pipelined behind it would be lost.
        if (l.pipeline > 1 && l.requests_per_connection != 0)
            return err("pipeline", "not with requests_per_connection; pipeline requests on keep-alive connections");
        break;
    case shape::ramp:
        if (l.length.count() <= 0 && l.profile != ramp_profile::stages)
            return err("duration", "missing; a ramp profile needs a duration greater than 0");
        if (l.profile != ramp_profile::stages && l.users == 0)
            return err("users", "missing; a ramp profile needs the peak number of users");
        if (l.profile == ramp_profile::stages && l.stages.empty())
            return err("stages", "missing; profile stages needs a list of {\"duration\", \"target\"}");
        break;
    }
    return {};
}

/// HTTP/2's rules: streams instead of pipelining, a stream count only under h2, and the shapes that carry streams.
result<void> validate_protocol(const scenario& s, const std::string& where)
{
    if (s.streams < 1 || s.streams > max_streams)
        return fail(where + ": streams: expected concurrent streams per connection in 1.." +
                    std::to_string(max_streams));
    if (s.protocol != http_protocol::h2) {
        if (s.streams > 1)
            return fail(where + ": streams: HTTP/2's concurrent streams per connection: only with \"protocol\": "
                                "\"h2\" (HTTP/1.1 carries several requests at once with load.pipeline)");
        return {};
    }
    for (const auto* l : {&s.load, s.background ? &s.background->load : nullptr}) {
        if (!l)
            continue;
        auto path = std::string(l == &s.load ? "load" : "background.load");
        if (l->pipeline > 1)
            return fail(where + ": " + path + ".pipeline: HTTP/1.1 pipelining, not with \"protocol\": \"h2\"; "
                                "HTTP/2 carries several requests at once with \"streams\"");
        if (l->requests_per_connection != 0)
            return fail(where + ": " + path + ".requests_per_connection: not with \"protocol\": \"h2\" (churn "
                                "closes with HTTP/1.1's Connection: close; an HTTP/2 connection stays open)");
        if (s.streams > 1 && l->kind == shape::ramp)
            return fail(where + ": streams: a ramp's user sends one request at a time; streams above 1 need shape "
                                "burst, closed or open");
    }
    return {};
}

}  // namespace

result<void> validate(const scenario& s, std::string_view where)
{
    auto w = std::string(where);
    if (auto r = validate_mix(s.mix, w, "requests"); !r)
        return r;
    if (auto r = validate_load(s.load, w, "load"); !r)
        return r;
    if (s.background) {
        if (auto r = validate_mix(s.background->mix, w, "background.requests"); !r)
            return r;
        if (s.background->load.kind == shape::ramp)
            return fail(w + ": background.load.shape: expected burst, closed or open");
        if (auto r = validate_load(s.background->load, w, "background.load"); !r)
            return r;
    }
    if (auto r = validate_protocol(s, w); !r)
        return r;
    if (s.trials < 1)
        return fail(w + ": trials: expected an integer in 1..1000");
    if (s.timeout.count() <= 0)
        return fail(w + ": timeout: expected a duration greater than 0");
    return {};
}

std::vector<load_spec*> loads_from_capacity(scenario& s)
{
    std::vector<load_spec*> out;
    if (s.load.rate_from)
        out.push_back(&s.load);
    if (s.background && s.background->load.rate_from)
        out.push_back(&s.background->load);
    return out;
}

bool takes_rate_from_capacity(const scenario& s) noexcept
{
    return s.load.rate_from || (s.background && s.background->load.rate_from);
}

std::vector<load_count> load_counts(const load_spec& l)
{
    return {{"connections", l.connections}, {"requests", l.requests}, {"users", l.users}};
}

void resize_load(load_spec& l, const load_resize& r)
{
    l.connections = static_cast<std::uint32_t>(r.count(l.connections));
    l.requests = r.count(l.requests);
    l.users = static_cast<std::uint32_t>(r.count(l.users));
    for (auto& st : l.stages)
        st.target = static_cast<std::uint32_t>(r.count(st.target));
    l.rate = r.rate(l.rate);
    if (l.rate_from)
        l.rate_from->times = r.rate(l.rate_from->times);
    prepare_ramp(l);  // a built-in profile's stages follow its new peak
}

result<scenario> prepare(scenario s, std::string_view where)
{
    prepare_ramp(s.load);
    if (s.background)
        prepare_ramp(s.background->load);
    if (auto v = validate(s, where); !v)
        return v.err();
    return s;
}

void prepare_ramp(load_spec& l)
{
    if (l.kind != shape::ramp)
        return;
    if (l.profile != ramp_profile::stages)
        l.stages = ramp_stages(l.profile, l.users, l.length, l.spikes);
    else {
        duration total{};
        std::uint32_t peak = 0;
        for (const auto& st : l.stages) {
            total += st.length;
            peak = std::max(peak, st.target);
        }
        l.length = total;
        l.users = peak;
    }
    l.connections = l.users;
}

}  // namespace execbench::load

namespace execbench::load {

void capacity_spec::merge(const capacity_spec& over)
{
    auto take = [](auto& into, const auto& from) {
        if (from)
            into = from;
    };
    take(slo, over.slo);
    take(connections, over.connections);
    take(connections_per_rps, over.connections_per_rps);
    take(start_rate, over.start_rate);
    take(max_rate, over.max_rate);
    take(resolution_percent, over.resolution_percent);
    take(trials, over.trials);
    take(step_duration, over.step_duration);
    take(step_warmup, over.step_warmup);
}

}  // namespace execbench::load
