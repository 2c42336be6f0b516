#include "execbench/load/results/context.hpp"

#include "execbench/load/results/upgrade.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/stats/sampler.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <type_traits>

namespace execbench::load {

using json = nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

// The writer's half: one function per object of the line.

json machine_json(const machine_context& c)
{
    return {{"cpu_model", c.cpu_model},
            {"cpu_count", c.cpu_count},
            {"kernel", c.kernel},
            {"hostname", c.hostname},
            {"cpu_governor", c.cpu_governor},
            {"cpu_mhz", c.cpu_mhz},
            {"memory_mb", c.memory_mb},
            {"loadavg_before", optional_number(c.loadavg_before)},
            {"loadavg_after", optional_number(c.loadavg_after)},
            {"steal_percent", optional_number(c.steal_percent)}};
}

/// The requests of a mix, each with its window when it has one.
json mix_json(const std::vector<request_spec>& requests)
{
    json mix = json::array();
    for (const auto& m : requests) {
        json r{{"method", m.method}, {"path", m.path}, {"weight", m.weight}, {"body_file", m.body_file}};
        if (m.from.count() > 0)
            r["from"] = format_duration(m.from);
        if (m.until)
            r["until"] = format_duration(*m.until);
        mix.push_back(std::move(r));
    }
    return mix;
}

/// A load: its shape's figures, and what only some loads have.
json load_json(const load_spec& l)
{
    json o{{"shape", to_string(l.kind)},
           {"connections", l.connections},
           {"requests", l.requests},
           {"rate", l.rate},
           {"duration", format_duration(l.length)},
           {"think_min", format_duration(l.think_min)},
           {"think_max", format_duration(l.think_max)}};
    if (l.requests_per_connection != 0)
        o["requests_per_connection"] = l.requests_per_connection;
    if (!l.preconnect)
        o["preconnect"] = false;
    if (l.pipeline > 1)
        o["pipeline"] = l.pipeline;
    if (l.rate_from)
        o["rate_from"] = {{"capacity_of", l.rate_from->capacity_of},
                          {"times", l.rate_from->times},
                          {"capacity_rps", l.rate_from->capacity_rps},
                          {"search", l.rate_from->search}};
    if (l.kind == shape::ramp) {
        o["profile"] = to_string(l.profile);
        o["users"] = l.users;
        json st = json::array();
        for (const auto& x : l.stages)
            st.push_back({{"duration", format_duration(x.length)}, {"target", x.target}});
        o["stages"] = st;
    }
    return o;
}

/// The scenario as it ran, after the command line's overrides.
json scenario_json(const scenario& s)
{
    json j = {{"name", s.name},
              {"file", s.file.string()},
              {"description", s.description},
              {"suites", s.suites},
              {"requests", mix_json(s.mix)},
              {"load", load_json(s.load)},
              {"warmup", format_duration(s.warmup)},
              {"trials", s.trials},
              {"pause", format_duration(s.pause)},
              {"timeout", format_duration(s.timeout)},
              {"connect_timeout", format_duration(s.connect_timeout)},
              {"server",
               {{"downstream", s.server.downstream},
                {"downstream_model", s.server.downstream_model},
                {"database", s.server.database},
                {"options", s.server.options}}}};
    if (s.background)
        j["background"] = {{"load", load_json(s.background->load)}, {"delay", format_duration(s.background->delay)}};
    // Only a scenario with a graceful stop says so: the line of one without stays as before.
    if (s.graceful_stop)
        j["graceful_stop"] = format_duration(*s.graceful_stop);
    // Only a TLS scenario says so: a cleartext one's line stays as before.
    if (s.tls) {
        j["tls"] = true;
        j["tls_resume"] = s.tls_resume;
        j["tls_key"] = s.tls_key;
    }
    // Likewise HTTP/2: an HTTP/1.1 line stays as before.
    if (s.protocol == http_protocol::h2) {
        j["protocol"] = to_string(s.protocol);
        j["streams"] = s.streams;
    }
    return j;
}

// The reader's half. Every field is optional: a missing or mistyped one keeps the default (an older line, or one
// written by hand, reads as "unknown" where it lacks a field, as the pages always treated it).

/// `j[key]` when `j` is an object holding it, else null.
const json& at(const json& j, const char* key)
{
    static const json none;
    if (!j.is_object())
        return none;
    auto it = j.find(key);
    return it == j.end() ? none : *it;
}

template <class T>
void read(const json& j, const char* key, T& out)
{
    const auto& v = at(j, key);
    if constexpr (std::is_same_v<T, std::string>) {
        if (v.is_string())
            out = v.get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (v.is_boolean())
            out = v.get<bool>();
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
        if (v.is_number())
            out = v.get<double>();
    } else {
        static_assert(std::is_arithmetic_v<T>);
        if (v.is_number())
            out = v.get<T>();
    }
}

void read_duration(const json& j, const char* key, duration& out)
{
    std::string text;
    read(j, key, text);
    if (auto d = parse_duration(text); !text.empty() && d)
        out = *d;
}

machine_context machine_of(const json& root)
{
    machine_context c;
    const auto& e = at(root, "execbench");
    read(e, "version", c.execbench_version);
    read(e, "git_revision", c.git_revision);
    read(e, "source_digest", c.source_digest);
    read(e, "build_type", c.build_type);
    read(e, "compiler", c.compiler);
    read(e, "boost_version", c.boost_version);
    const auto& m = at(root, "machine");
    read(m, "cpu_model", c.cpu_model);
    read(m, "cpu_count", c.cpu_count);
    read(m, "kernel", c.kernel);
    read(m, "hostname", c.hostname);
    read(m, "cpu_governor", c.cpu_governor);
    read(m, "cpu_mhz", c.cpu_mhz);
    read(m, "memory_mb", c.memory_mb);
    read(m, "loadavg_before", c.loadavg_before);
    read(m, "loadavg_after", c.loadavg_after);
    read(m, "steal_percent", c.steal_percent);
    const auto& l = at(root, "limits");
    read(l, "rlimit_nofile", c.rlimit_nofile);
    read(l, "somaxconn", c.somaxconn);
    read(l, "port_range", c.port_range);
    return c;
}

std::vector<request_spec> mix_of(const json& j)
{
    std::vector<request_spec> mix;
    if (!j.is_array())
        return mix;
    for (const auto& r : j) {
        request_spec m;
        read(r, "method", m.method);
        read(r, "path", m.path);
        read(r, "weight", m.weight);
        read(r, "body_file", m.body_file);
        read_duration(r, "from", m.from);
        if (duration until{}; at(r, "until").is_string()) {
            read_duration(r, "until", until);
            m.until = until;
        }
        mix.push_back(std::move(m));
    }
    return mix;
}

load_spec load_of(const json& j)
{
    load_spec l;
    std::string text;
    read(j, "shape", text);
    if (auto k = parse_shape(text))
        l.kind = *k;
    read(j, "connections", l.connections);
    read(j, "requests", l.requests);
    read(j, "rate", l.rate);
    read_duration(j, "duration", l.length);
    read_duration(j, "think_min", l.think_min);
    read_duration(j, "think_max", l.think_max);
    read(j, "requests_per_connection", l.requests_per_connection);
    read(j, "preconnect", l.preconnect);
    read(j, "pipeline", l.pipeline);
    if (const auto& f = at(j, "rate_from"); f.is_object()) {
        rate_from_capacity r;
        read(f, "capacity_of", r.capacity_of);
        read(f, "times", r.times);
        read(f, "capacity_rps", r.capacity_rps);
        read(f, "search", r.search);
        l.rate_from = std::move(r);
    }
    text.clear();
    read(j, "profile", text);
    if (auto p = parse_ramp_profile(text))
        l.profile = *p;
    read(j, "users", l.users);
    if (const auto& st = at(j, "stages"); st.is_array())
        for (const auto& x : st) {
            ramp_stage stage;
            read_duration(x, "duration", stage.length);
            read(x, "target", stage.target);
            l.stages.push_back(stage);
        }
    return l;
}

scenario scenario_of(const json& j)
{
    scenario s;
    read(j, "name", s.name);
    std::string file;
    read(j, "file", file);
    s.file = file;
    read(j, "description", s.description);
    if (const auto& v = at(j, "suites"); v.is_array())
        for (const auto& x : v)
            if (x.is_string())
                s.suites.push_back(x.get<std::string>());
    s.mix = mix_of(at(j, "requests"));
    s.load = load_of(at(j, "load"));
    read_duration(j, "warmup", s.warmup);
    read(j, "trials", s.trials);
    read_duration(j, "pause", s.pause);
    read_duration(j, "timeout", s.timeout);
    read_duration(j, "connect_timeout", s.connect_timeout);
    if (j.contains("graceful_stop")) {
        duration d{};
        read_duration(j, "graceful_stop", d);
        s.graceful_stop = d;
    }
    read(j, "tls", s.tls);
    read(j, "tls_resume", s.tls_resume);
    read(j, "tls_key", s.tls_key);
    std::string protocol;
    read(j, "protocol", protocol);
    s.protocol = parse_http_protocol(protocol).value_or(http_protocol::http1_1);
    read(j, "streams", s.streams);
    const auto& srv = at(j, "server");
    read(srv, "downstream", s.server.downstream);
    read(srv, "downstream_model", s.server.downstream_model);
    read(srv, "database", s.server.database);
    if (const auto& o = at(srv, "options"); o.is_object())
        for (const auto& [k, v] : o.items())
            if (v.is_string())
                s.server.options[k] = v.get<std::string>();
    if (const auto& b = at(j, "background"); b.is_object()) {
        background_spec bg;
        bg.load = load_of(at(b, "load"));
        read_duration(b, "delay", bg.delay);
        s.background = std::move(bg);
    }
    return s;
}

}  // namespace

std::string to_json(const run_context& c)
{
    json j;
    const auto& s = c.scenario_used;
    j["run_id"] = c.run_id;
    j["started_at"] = c.started_at;
    j["execbench"] = {{"version", c.machine.execbench_version},
                      {"git_revision", c.machine.git_revision},
                      {"source_digest", c.machine.source_digest},
                      {"build_type", c.machine.build_type},
                      {"compiler", c.machine.compiler},
                      {"boost_version", c.machine.boost_version}};
    j["machine"] = machine_json(c.machine);
    j["limits"] = {{"rlimit_nofile", c.machine.rlimit_nofile},
                   {"somaxconn", c.machine.somaxconn},
                   {"port_range", c.machine.port_range}};
    // How the server's figures were taken: a reader ranks a CPU maximum only when it is over a whole second.
    j["server_sampling"] = {{"cpu_max_window_ms", c.cpu_max_window_ms}};
    json arm_options = json::object();
    for (const auto& [k, v] : c.arm.options)
        arm_options[k] = v;
    j["arm"] = {{"name", c.arm.name}, {"model", c.arm.model}, {"options", arm_options}};
    if (c.order)
        j["order"] = {{"kind", c.order->kind}, {"seed", c.order->seed}, {"round", c.order->round}};
    if (c.affinity)
        j["affinity"] = {
            {"server", c.affinity->server}, {"load", c.affinity->load}, {"downstream", c.affinity->downstream}};
    j["scenario"] = scenario_json(s);
    auto decided_by = s.scale.decided_by.empty() ? json(nullptr) : json(s.scale.decided_by);
    j["scale"] = {{"factor", s.scale.factor}, {"decided_by", decided_by}};
    if (s.scale.factor != 1)
        j["scale"]["note"] = c.scale_note;
    if (s.time_scale.factor != 1)
        j["time_scale"] = {{"factor", s.time_scale.factor}, {"unscaled", s.time_scale.unscaled}, {"note", c.time_note}};
    j["load_settings"] = {{"url", c.url}, {"threads", c.threads}};
    auto health = json::parse(c.server.health_json, nullptr, false);
    j["server"] = {{"model", c.server.model},
                   {"health", health.is_discarded() ? json(nullptr) : health},
                   {"local", c.server.local},
                   {"pid", c.server.pid ? json(*c.server.pid) : json(nullptr)},
                   {"sampling", c.server.sampling}};
    j["trials_completed"] = c.trials_completed;
    j["generator_bound_trials"] = c.generator_bound_trials;
    j["partial"] = c.partial;
    j["noisy"] = c.noisy;
    j["schema"] = schema_version;
    return j.dump();
}

namespace {

/// The schema a context object states; the unversioned one when it states none.
result<unsigned> schema_in(const json& j, std::string_view where)
{
    const auto& v = at(j, "schema");
    if (v.is_null())
        return unversioned_schema;
    return schema_of(v.is_number_unsigned() ? std::to_string(v.get<unsigned>()) : v.dump(), where);
}

}  // namespace

result<unsigned> context_schema(std::string_view line, std::string_view where)
{
    auto j = json::parse(line.begin(), line.end(), nullptr, false);
    return j.is_object() ? schema_in(j, where) : unversioned_schema;
}

result<run_context> parse_context(std::string_view line)
{
    auto c = read_context_line(line, "a context line");
    if (!c)
        return c.err();
    if (!*c)
        return fail("a context line is not a JSON object");
    return std::move(**c);
}

result<std::vector<run_context>> read_context_file(const std::filesystem::path& file)
{
    std::vector<run_context> out;
    std::ifstream in(file);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        auto read = read_context_line(line, file.string() + " line " + std::to_string(number));
        if (!read)
            return read.err();
        if (*read)
            out.push_back(std::move(**read));
    }
    return out;
}

result<std::optional<run_context>> read_context_line(std::string_view line, std::string_view where)
{
    auto j = json::parse(line.begin(), line.end(), nullptr, false);
    if (!j.is_object())
        return std::optional<run_context>{};
    // No field of schema 2 needs a rule for lines of 1: each one a line lacks keeps run_context's default, which is
    // what it meant before the field was written (no pinning, scale 1, no CPU maximum window).
    if (auto version = schema_in(j, where); !version)
        return version.err();
    run_context c;
    read(j, "run_id", c.run_id);
    read(j, "started_at", c.started_at);
    c.machine = machine_of(j);
    read(at(j, "server_sampling"), "cpu_max_window_ms", c.cpu_max_window_ms);
    const auto& arm = at(j, "arm");
    read(arm, "name", c.arm.name);
    read(arm, "model", c.arm.model);
    if (const auto& o = at(arm, "options"); o.is_object())
        for (const auto& [k, v] : o.items())
            if (v.is_string())
                c.arm.options.emplace_back(k, v.get<std::string>());
    if (const auto& o = at(j, "order"); o.is_object()) {
        run_order order;
        read(o, "kind", order.kind);
        read(o, "seed", order.seed);
        read(o, "round", order.round);
        c.order = std::move(order);
    }
    if (const auto& a = at(j, "affinity"); a.is_object()) {
        affinity_record pins;
        read(a, "server", pins.server);
        read(a, "load", pins.load);
        read(a, "downstream", pins.downstream);
        c.affinity = std::move(pins);
    }
    c.scenario_used = scenario_of(at(j, "scenario"));
    const auto& scale = at(j, "scale");
    read(scale, "factor", c.scenario_used.scale.factor);
    read(scale, "decided_by", c.scenario_used.scale.decided_by);
    read(scale, "note", c.scale_note);
    if (const auto& t = at(j, "time_scale"); t.is_object()) {
        read(t, "factor", c.scenario_used.time_scale.factor);
        read(t, "unscaled", c.scenario_used.time_scale.unscaled);
        read(t, "note", c.time_note);
    }
    const auto& settings = at(j, "load_settings");
    read(settings, "url", c.url);
    read(settings, "threads", c.threads);
    const auto& srv = at(j, "server");
    read(srv, "model", c.server.model);
    if (const auto& h = at(srv, "health"); h.is_object())
        c.server.health_json = h.dump();
    read(srv, "local", c.server.local);
    if (const auto& pid = at(srv, "pid"); pid.is_number_integer())
        c.server.pid = pid.get<pid_t>();
    read(srv, "sampling", c.server.sampling);
    read(j, "trials_completed", c.trials_completed);
    read(j, "generator_bound_trials", c.generator_bound_trials);
    read(j, "partial", c.partial);
    read(j, "noisy", c.noisy);
    return std::optional<run_context>(std::move(c));
}

}  // namespace execbench::load
