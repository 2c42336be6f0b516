#include "execbench/load/scenario/scenario_json.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/tls/server_context.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

namespace execbench::load {

namespace {

using json = nlohmann::json;

/// Reads one JSON object with a fixed set of allowed fields and reports mistakes as "<file>: <path>: ...".
class reader {
public:
    reader(std::string file) : file_(std::move(file)) {}

    error err(const std::string& path, const std::string& what) const
    {
        return fail(file_ + ": " + path + ": " + what);
    }

    /// Fails on a field not in `allowed` (typos would otherwise be ignored silently).
    std::optional<error> only(const json& obj, const std::string& path, std::initializer_list<std::string_view> allowed)
    {
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
                std::string list;
                for (auto a : allowed)
                    list += (list.empty() ? "" : ", ") + std::string(a);
                return err(join(path, it.key()), "unknown field; expected one of: " + list);
            }
        }
        return std::nullopt;
    }

    static std::string join(const std::string& path, const std::string& key)
    {
        return path.empty() ? key : path + "." + key;
    }

    result<duration> get_duration(const json& v, const std::string& path)
    {
        if (v.is_number()) {
            double s = v.get<double>();
            if (!(s >= 0) || s > 1e9)
                return err(path, "expected a non-negative number of seconds");
            return duration{static_cast<std::int64_t>(std::llround(s * 1e9))};
        }
        if (!v.is_string())
            return err(path, "expected a duration such as \"500ms\", \"3s\", \"2m\" or a number of seconds");
        auto d = parse_duration(v.get<std::string>());
        if (!d)
            return err(path, d.err().message);
        return d;
    }

    result<std::uint64_t> get_uint(const json& v, const std::string& path, std::uint64_t lo, std::uint64_t hi)
    {
        auto range = "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
        if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
            return err(path, range);
        if (v.is_number_integer() && v.get<std::int64_t>() < 0)
            return err(path, range);
        double d = v.get<double>();
        if (d < double(lo) || d > double(hi))
            return err(path, range);
        return static_cast<std::uint64_t>(v.is_number_unsigned() ? v.get<std::uint64_t>()
                                                                 : static_cast<std::uint64_t>(d));
    }

    result<std::string> get_string(const json& v, const std::string& path, bool allow_empty = false)
    {
        if (!v.is_string() || (!allow_empty && v.get<std::string>().empty()))
            return err(path, "expected a non-empty string");
        return v.get<std::string>();
    }

private:
    std::string file_;
};

#define EXECBENCH_TRY(var, expr)                                                                                       \
    auto var##_r = (expr);                                                                                             \
    if (!var##_r)                                                                                                      \
        return var##_r.err();                                                                                          \
    auto var = std::move(var##_r.value())

result<std::vector<request_spec>> parse_mix(reader& rd, const json& v, const std::string& path,
                                            const std::filesystem::path& body_dir)
{
    if (!v.is_array() || v.empty())
        return rd.err(path, "expected a non-empty array of requests ({\"method\", \"path\", ...})");
    std::vector<request_spec> mix;
    for (std::size_t i = 0; i < v.size(); ++i) {
        auto p = path + "[" + std::to_string(i) + "]";
        const auto& r = v[i];
        if (!r.is_object())
            return rd.err(p, "expected an object with \"path\" and optional \"method\", \"headers\", \"body_file\", "
                             "\"weight\", \"from\", \"until\"");
        if (auto e = rd.only(r, p, {"method", "path", "headers", "body_file", "weight", "from", "until"}))
            return *e;
        request_spec spec;
        if (r.contains("method")) {
            EXECBENCH_TRY(m, rd.get_string(r["method"], p + ".method"));
            bool token = std::all_of(m.begin(), m.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
            if (!token)
                return rd.err(p + ".method", "expected an upper-case HTTP method such as GET or POST");
            spec.method = m;
        }
        if (!r.contains("path"))
            return rd.err(p + ".path", "missing; expected the request path with query, starting with '/'");
        EXECBENCH_TRY(path_text, rd.get_string(r["path"], p + ".path"));
        if (path_text.front() != '/' || path_text.find_first_of(" \r\n\t") != std::string::npos)
            return rd.err(p + ".path", "expected a path starting with '/' and without spaces");
        spec.path = path_text;
        if (r.contains("headers")) {
            const auto& h = r["headers"];
            if (!h.is_object())
                return rd.err(p + ".headers", "expected an object of header names to string values");
            for (auto it = h.begin(); it != h.end(); ++it) {
                auto hp = p + ".headers." + it.key();
                bool name_ok = !it.key().empty() && std::all_of(it.key().begin(), it.key().end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
                });
                if (!name_ok)
                    return rd.err(hp, "expected a header name of letters, digits and '-'");
                if (!it.value().is_string() || it.value().get<std::string>().find_first_of("\r\n") != std::string::npos)
                    return rd.err(hp, "expected a single-line string value");
                spec.headers.emplace_back(it.key(), it.value().get<std::string>());
            }
        }
        if (r.contains("body_file")) {
            EXECBENCH_TRY(bf, rd.get_string(r["body_file"], p + ".body_file"));
            spec.body_file = bf;
            auto full = std::filesystem::path(bf).is_absolute() ? std::filesystem::path(bf) : body_dir / bf;
            auto body = read_file(full);
            if (!body)
                return rd.err(p + ".body_file", "cannot read '" + full.string() + "'; expected a file relative to " +
                                                    "the scenario directory");
            spec.body = std::move(*body);
            bool has_type = std::any_of(spec.headers.begin(), spec.headers.end(), [](const auto& kv) {
                std::string k = kv.first;
                std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
                return k == "content-type";
            });
            if (!has_type && full.extension() == ".json")
                spec.headers.emplace_back("Content-Type", "application/json");
        }
        if (r.contains("weight")) {
            EXECBENCH_TRY(w, rd.get_uint(r["weight"], p + ".weight", 1, 1000));
            spec.weight = static_cast<unsigned>(w);
        }
        if (r.contains("from")) {
            EXECBENCH_TRY(d, rd.get_duration(r["from"], p + ".from"));
            spec.from = d;
        }
        if (r.contains("until")) {
            EXECBENCH_TRY(d, rd.get_duration(r["until"], p + ".until"));
            if (d <= spec.from)
                return rd.err(p + ".until", "expected a time after from (" + format_duration(spec.from) +
                                                "): a request leaves the mix after it joined");
            spec.until = d;
        }
        mix.push_back(std::move(spec));
    }
    return mix;
}

/// "rate": requests per second, or {"capacity_of", "times"}, a multiple of each arm's capacity.
result<void> parse_rate(reader& rd, const json& v, const std::string& path, load_spec& l)
{
    if (v.is_object()) {
        if (auto e = rd.only(v, path, {"capacity_of", "times"}))
            return *e;
        if (!v.contains("capacity_of") || !v.contains("times"))
            return rd.err(path, "expected {\"capacity_of\": capacity scenario, \"times\": multiple}");
        EXECBENCH_TRY(of, rd.get_string(v["capacity_of"], path + ".capacity_of"));
        if (!v["times"].is_number() || !(v["times"].get<double>() > 0) || v["times"].get<double>() > 100)
            return rd.err(path + ".times", "expected the multiple of the capacity, a number in (0, 100]");
        l.rate_from.emplace();
        l.rate_from->capacity_of = of;
        l.rate_from->times = v["times"].get<double>();
        return {};
    }
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e8)
        return rd.err(path, "expected requests per second, a number in (0, 1e8], or "
                            "{\"capacity_of\": capacity scenario, \"times\": multiple}");
    l.rate = v.get<double>();
    return {};
}

/// "think": one duration, or {"min", "max"}.
result<void> parse_think(reader& rd, const json& t, const std::string& path, load_spec& l)
{
    if (!t.is_object()) {
        EXECBENCH_TRY(d, rd.get_duration(t, path));
        l.think_min = l.think_max = d;
        return {};
    }
    if (auto e = rd.only(t, path, {"min", "max"}))
        return *e;
    if (!t.contains("min") || !t.contains("max"))
        return rd.err(path, "expected {\"min\": duration, \"max\": duration}");
    EXECBENCH_TRY(lo, rd.get_duration(t["min"], path + ".min"));
    EXECBENCH_TRY(hi, rd.get_duration(t["max"], path + ".max"));
    if (hi < lo)
        return rd.err(path, "expected min <= max");
    l.think_min = lo;
    l.think_max = hi;
    return {};
}

/// The whole numbers and the flag of a load: users, spikes, requests per connection, pipeline depth, preconnect.
result<void> parse_counts(reader& rd, const json& v, const std::string& path, load_spec& l)
{
    if (v.contains("users")) {
        EXECBENCH_TRY(u, rd.get_uint(v["users"], path + ".users", 1, 1'000'000));
        l.users = static_cast<std::uint32_t>(u);
    }
    if (v.contains("spikes")) {
        EXECBENCH_TRY(n, rd.get_uint(v["spikes"], path + ".spikes", 1, 1000));
        l.spikes = static_cast<std::uint32_t>(n);
    }
    if (v.contains("requests_per_connection")) {
        EXECBENCH_TRY(n, rd.get_uint(v["requests_per_connection"], path + ".requests_per_connection", 1, 1'000'000));
        l.requests_per_connection = static_cast<std::uint32_t>(n);
    }
    if (v.contains("pipeline")) {
        EXECBENCH_TRY(n, rd.get_uint(v["pipeline"], path + ".pipeline", 1, max_pipeline));
        l.pipeline = static_cast<std::uint32_t>(n);
    }
    if (v.contains("preconnect")) {
        if (!v["preconnect"].is_boolean())
            return rd.err(path + ".preconnect", "expected true (connect before the load starts, the default) or "
                                                "false (connect at the first request)");
        l.preconnect = v["preconnect"].get<bool>();
    }
    return {};
}

/// A ramp's "profile" and its "stages" ({"duration", "target"} each, only with profile "stages").
result<void> parse_profile(reader& rd, const json& v, const std::string& path, load_spec& l)
{
    if (v.contains("profile")) {
        auto p = v["profile"].is_string() ? parse_ramp_profile(v["profile"].get<std::string>()) : std::nullopt;
        if (!p)
            return rd.err(path + ".profile", "expected one of stepped, smooth, sharp, stages");
        l.profile = *p;
    }
    if (!v.contains("stages"))
        return {};
    const auto& st = v["stages"];
    if (!st.is_array() || st.empty())
        return rd.err(path + ".stages", "expected a non-empty array of {\"duration\", \"target\"}");
    if (v.contains("profile") && l.profile != ramp_profile::stages)
        return rd.err(path + ".stages", "only used with profile \"stages\"");
    l.profile = ramp_profile::stages;
    for (std::size_t i = 0; i < st.size(); ++i) {
        auto p = path + ".stages[" + std::to_string(i) + "]";
        if (!st[i].is_object())
            return rd.err(p, "expected {\"duration\": duration, \"target\": users}");
        if (auto e = rd.only(st[i], p, {"duration", "target"}))
            return *e;
        if (!st[i].contains("duration") || !st[i].contains("target"))
            return rd.err(p, "expected {\"duration\": duration, \"target\": users}");
        EXECBENCH_TRY(d, rd.get_duration(st[i]["duration"], p + ".duration"));
        EXECBENCH_TRY(t, rd.get_uint(st[i]["target"], p + ".target", 0, 1'000'000));
        l.stages.push_back({d, static_cast<std::uint32_t>(t)});
    }
    return {};
}

result<load_spec> parse_load(reader& rd, const json& v, const std::string& path)
{
    if (!v.is_object())
        return rd.err(path, "expected an object with \"shape\" and its numbers");
    if (auto e = rd.only(v, path,
                         {"shape", "connections", "requests", "rate", "duration", "think", "profile", "users", "spikes",
                          "stages", "requests_per_connection", "preconnect", "pipeline"}))
        return *e;
    load_spec l;
    if (!v.contains("shape"))
        return rd.err(path + ".shape", "missing; expected one of burst, closed, open, ramp");
    auto sh = v["shape"].is_string() ? parse_shape(v["shape"].get<std::string>()) : std::nullopt;
    if (!sh)
        return rd.err(path + ".shape", "expected one of burst, closed, open, ramp");
    l.kind = *sh;
    // A field another shape uses is a mistake worth naming.
    for (std::string_view field : {"requests", "rate", "duration", "think", "profile", "users", "spikes", "stages",
                                   "connections", "preconnect", "pipeline"}) {
        if (v.contains(field) && !field_used_by(field, l.kind))
            return rd.err(path + "." + std::string(field),
                          "not used by shape " + std::string(to_string(l.kind)) + "; remove it");
    }
    if (v.contains("connections")) {
        EXECBENCH_TRY(c, rd.get_uint(v["connections"], path + ".connections", 1, 1'000'000));
        l.connections = static_cast<std::uint32_t>(c);
    }
    if (v.contains("requests")) {
        EXECBENCH_TRY(n, rd.get_uint(v["requests"], path + ".requests", 1, 1'000'000'000));
        l.requests = n;
    }
    if (v.contains("rate"))
        if (auto r = parse_rate(rd, v["rate"], path + ".rate", l); !r)
            return r.err();
    if (v.contains("duration")) {
        EXECBENCH_TRY(d, rd.get_duration(v["duration"], path + ".duration"));
        l.length = d;
    }
    if (v.contains("think")) {
        if (auto t = parse_think(rd, v["think"], path + ".think", l); !t)
            return t.err();
    } else if (l.kind == shape::ramp) {
        // The Java study's paced users sleep 1-3 s between requests.
        l.think_min = std::chrono::seconds{1};
        l.think_max = std::chrono::seconds{3};
    }
    if (auto c = parse_counts(rd, v, path, l); !c)
        return c.err();
    if (auto p = parse_profile(rd, v, path, l); !p)
        return p.err();
    return l;
}

result<double> get_positive(reader& rd, const json& v, const std::string& path)
{
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e8)
        return rd.err(path, "expected a positive number");
    return v.get<double>();
}

/// The "capacity" object: how a capacity search runs the scenario (docs/scenarios.md).
result<capacity_spec> parse_capacity(reader& rd, const json& v, const std::string& path)
{
    if (!v.is_object())
        return rd.err(path, "expected an object such as {\"slo\": \"p99<=250ms,errors=0,unsent=0\"}");
    if (auto e = rd.only(v, path,
                         {"slo", "connections", "connections_per_rps", "start_rate", "max_rate", "resolution_percent",
                          "trials", "step_duration", "step_warmup"}))
        return *e;
    capacity_spec c;
    if (v.contains("slo")) {
        // The gates are parsed where a search is planned (load/run/capacity): the SLO grammar reads the metric
        // names of a run, a floor above scenarios.
        EXECBENCH_TRY(text, rd.get_string(v["slo"], path + ".slo"));
        c.slo = text;
    }
    if (v.contains("connections") && v["connections"] != "follow") {
        EXECBENCH_TRY(n, rd.get_uint(v["connections"], path + ".connections", 1, 1'000'000));
        c.connections = static_cast<std::uint32_t>(n);
    }
    auto number = [&](const char* key, std::optional<double>& into) -> std::optional<error> {
        if (!v.contains(key))
            return std::nullopt;
        auto n = get_positive(rd, v[key], path + "." + key);
        if (!n)
            return n.err();
        into = *n;
        return std::nullopt;
    };
    for (auto [key, into] : {std::pair{"connections_per_rps", &c.connections_per_rps},
                             {"start_rate", &c.start_rate},
                             {"max_rate", &c.max_rate},
                             {"resolution_percent", &c.resolution_percent}})
        if (auto e = number(key, *into))
            return *e;
    if (v.contains("trials")) {
        EXECBENCH_TRY(t, rd.get_uint(v["trials"], path + ".trials", 1, 100));
        c.trials = static_cast<std::uint32_t>(t);
    }
    for (auto [key, into] : {std::pair{"step_duration", &c.step_duration}, {"step_warmup", &c.step_warmup}}) {
        if (!v.contains(key))
            continue;
        EXECBENCH_TRY(text, rd.get_string(v[key], path + "." + key));
        if (auto d = parse_duration(text); !d)
            return rd.err(path + "." + key, d.err().message);
        *into = text;
    }
    return c;
}

/// `"background"`: a load run before and beside the measured one.
result<background_spec> parse_background(reader& rd, const json& b, const std::filesystem::path& body_dir)
{
    if (!b.is_object())
        return rd.err("background", "expected an object with \"requests\", \"load\" and optional \"delay\"");
    if (auto e = rd.only(b, "background", {"requests", "load", "delay"}))
        return *e;
    background_spec bg;
    if (!b.contains("requests"))
        return rd.err("background.requests", "missing; expected a non-empty array of requests");
    EXECBENCH_TRY(mix, parse_mix(rd, b["requests"], "background.requests", body_dir));
    bg.mix = std::move(mix);
    if (!b.contains("load"))
        return rd.err("background.load", "missing; expected an object with \"shape\" (burst or closed)");
    EXECBENCH_TRY(l, parse_load(rd, b["load"], "background.load"));
    bg.load = std::move(l);
    if (b.contains("delay")) {
        EXECBENCH_TRY(d, rd.get_duration(b["delay"], "background.delay"));
        bg.delay = d;
    }
    return bg;
}

/// The top level's timing: warm-up, pause, timeouts (above 0), the graceful stop and trials.
result<void> parse_timing(reader& rd, const json& doc, scenario& s)
{
    for (auto [name, out] : {std::pair{"warmup", &s.warmup}, std::pair{"pause", &s.pause},
                             std::pair{"timeout", &s.timeout}, std::pair{"connect_timeout", &s.connect_timeout}}) {
        if (!doc.contains(name))
            continue;
        EXECBENCH_TRY(d, rd.get_duration(doc[name], name));
        *out = d;
    }
    for (auto [name, value] : {std::pair{"timeout", s.timeout}, std::pair{"connect_timeout", s.connect_timeout}})
        if (doc.contains(name) && value.count() == 0)
            return rd.err(name, "expected a duration greater than 0");
    if (doc.contains("graceful_stop")) {
        EXECBENCH_TRY(d, rd.get_duration(doc["graceful_stop"], "graceful_stop"));
        s.graceful_stop = d;
    }
    if (doc.contains("trials")) {
        EXECBENCH_TRY(t, rd.get_uint(doc["trials"], "trials", 1, 1000));
        s.trials = static_cast<std::uint32_t>(t);
    }
    return {};
}

/// `"server"`: what the server under test needs (a separate downstream, a database, bench-server options).
result<server_spec> parse_server(reader& rd, const json& sv)
{
    server_spec out;
    if (!sv.is_object())
        return rd.err("server", "expected an object such as {\"downstream\": \"separate\"}");
    if (auto e = rd.only(sv, "server", {"downstream", "downstream_model", "database", "options"}))
        return *e;
    if (sv.contains("database")) {
        if (!sv["database"].is_string() ||
            (sv["database"] != "sqlite" && sv["database"] != "sqlite-file" && sv["database"] != "postgresql"))
            return rd.err("server.database", "expected \"sqlite\", \"sqlite-file\" or \"postgresql\"");
        out.database = sv["database"].get<std::string>();
    }
    if (sv.contains("downstream")) {
        if (!sv["downstream"].is_string() || (sv["downstream"] != "self" && sv["downstream"] != "separate"))
            return rd.err("server.downstream", "expected \"self\" or \"separate\"");
        out.downstream = sv["downstream"].get<std::string>();
    }
    if (sv.contains("downstream_model")) {
        const auto& m = sv["downstream_model"];
        if (!m.is_string() || !is_model_name(m.get<std::string>()))
            return rd.err("server.downstream_model", "expected one of " + joined_model_names());
        out.downstream_model = m.get<std::string>();
    }
    if (sv.contains("options")) {
        const auto& o = sv["options"];
        if (!o.is_object())
            return rd.err("server.options", "expected an object of bench-server option names to values");
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.value().is_string())
                out.options[it.key()] = it.value().get<std::string>();
            else if (it.value().is_number() || it.value().is_boolean())
                out.options[it.key()] = it.value().dump();
            else
                return rd.err("server.options." + it.key(), "expected a string, number or boolean");
        }
    }
    return out;
}

}  // namespace

result<scenario> parse_scenario(std::string_view json_text, const std::filesystem::path& file,
                                const std::filesystem::path& body_dir)
{
    auto where = file.empty() ? std::string("scenario") : file.string();
    reader rd(where);
    json doc;
    try {
        doc = json::parse(json_text.begin(), json_text.end());
    } catch (const json::parse_error& e) {
        return fail(where + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object())
        return fail(where + ": expected a JSON object at the top level");
    if (auto e = rd.only(doc, "",
                         {"description", "suites", "requests", "load", "background", "warmup", "trials", "pause",
                          "timeout", "connect_timeout", "graceful_stop", "server", "capacity", "tls", "tls_resume", "tls_key", "protocol", "streams",
                          "$comment"}))
        return *e;
    scenario s;
    s.file = file;
    s.name = file.stem().string();
    if (!doc.contains("description"))
        return rd.err("description", "missing; expected a one-line description");
    {
        EXECBENCH_TRY(d, rd.get_string(doc["description"], "description"));
        s.description = d;
    }
    if (doc.contains("suites")) {
        const auto& su = doc["suites"];
        if (!su.is_array())
            return rd.err("suites", "expected an array of suite names");
        for (std::size_t i = 0; i < su.size(); ++i) {
            EXECBENCH_TRY(n, rd.get_string(su[i], "suites[" + std::to_string(i) + "]"));
            s.suites.push_back(n);
        }
    }
    if (!doc.contains("requests"))
        return rd.err("requests", "missing; expected a non-empty array of requests");
    {
        EXECBENCH_TRY(mix, parse_mix(rd, doc["requests"], "requests", body_dir));
        s.mix = std::move(mix);
    }
    if (!doc.contains("load"))
        return rd.err("load", "missing; expected an object with \"shape\" and its numbers");
    {
        EXECBENCH_TRY(l, parse_load(rd, doc["load"], "load"));
        s.load = std::move(l);
    }
    if (doc.contains("background")) {
        EXECBENCH_TRY(bg, parse_background(rd, doc["background"], body_dir));
        s.background = std::move(bg);
    }
    if (auto t = parse_timing(rd, doc, s); !t)
        return t.err();
    if (doc.contains("server")) {
        EXECBENCH_TRY(sv, parse_server(rd, doc["server"]));
        s.server = std::move(sv);
    }
    if (doc.contains("capacity")) {
        EXECBENCH_TRY(c, parse_capacity(rd, doc["capacity"], "capacity"));
        s.capacity = std::move(c);
    }
    for (auto [key, into] : {std::pair{"tls", &s.tls}, std::pair{"tls_resume", &s.tls_resume}}) {
        if (!doc.contains(key))
            continue;
        if (!doc[key].is_boolean())
            return rd.err(key, "expected true or false");
        *into = doc[key].get<bool>();
    }
    if (doc.contains("tls_resume") && !s.tls)
        return rd.err("tls_resume", "only with \"tls\": true (resumption is TLS's)");
    if (doc.contains("tls_key")) {
        if (!s.tls)
            return rd.err("tls_key", "only with \"tls\": true (the key is the TLS server's)");
        EXECBENCH_TRY(k, rd.get_string(doc["tls_key"], "tls_key"));
        const auto key = tls::parse_key_type(k);
        if (!key)
            return rd.err("tls_key", "'" + k + "' is no key type; expected one of " + tls::key_type_list());
        s.tls_key = std::string(tls::to_string(*key));
    }
    if (doc.contains("protocol")) {
        EXECBENCH_TRY(p, rd.get_string(doc["protocol"], "protocol"));
        auto protocol = parse_http_protocol(p);
        if (!protocol)
            return rd.err("protocol", "'" + p + "': expected \"http/1.1\" or \"h2\" (h2c in cleartext, h2 by ALPN "
                                      "with \"tls\": true)");
        s.protocol = *protocol;
    }
    if (doc.contains("streams")) {
        EXECBENCH_TRY(n, rd.get_uint(doc["streams"], "streams", 1, max_streams));
        s.streams = static_cast<std::uint32_t>(n);
    }
    return prepare(std::move(s), where);
}

#undef EXECBENCH_TRY

}  // namespace execbench::load
