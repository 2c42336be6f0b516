#include "execbench/load/scenario.hpp"

#include "execbench/core/file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <numeric>
#include <set>

namespace execbench::load {

namespace {

using json = nlohmann::json;

constexpr shape every_shape[] = {shape::burst, shape::closed, shape::open, shape::ramp};

std::string trim(std::string_view s)
{
    auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos)
        return {};
    auto e = s.find_last_not_of(" \t");
    return std::string(s.substr(b, e - b + 1));
}

}  // namespace

result<duration> parse_duration(std::string_view input)
{
    auto text = trim(input);
    auto bad = [&] {
        std::string msg = "'";
        msg.append(input);
        msg.append("' is not a duration: expected a number of seconds or a number with a unit "
                   "(e.g. 250us, 500ms, 3s, 2m, 1h)");
        return fail(std::move(msg));
    };
    if (text.empty())
        return bad();
    std::size_t unit_at = 0;
    while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
        ++unit_at;
    auto number = text.substr(0, unit_at);
    auto unit = trim(std::string_view(text).substr(unit_at));
    if (number.empty() || std::count(number.begin(), number.end(), '.') > 1 || number == ".")
        return bad();
    double value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size())
        return bad();
    double scale = 0;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "m" || unit == "min")
        scale = 60e9;
    else if (unit == "h")
        scale = 3600e9;
    else
        return bad();
    double ns = value * scale;
    if (!std::isfinite(ns) || ns > 1e18)
        return fail("'" + std::string(input) + "' is too long a duration");
    return duration{static_cast<std::int64_t>(std::llround(ns))};
}

std::string format_duration(duration d)
{
    using namespace std::chrono;
    auto ns = d.count();
    if (ns == 0)
        return "0s";
    if (ns % 1'000'000'000 != 0 || ns < 1'000'000'000) {
        if (ns % 1'000'000 == 0)
            return std::to_string(ns / 1'000'000) + "ms";
        if (ns % 1000 == 0)
            return std::to_string(ns / 1000) + "us";
        return std::to_string(ns) + "ns";
    }
    auto s = ns / 1'000'000'000;
    std::string out;
    if (s >= 3600 && s % 3600 == 0)
        return std::to_string(s / 3600) + "h";
    if (s >= 60) {
        out = std::to_string(s / 60) + "m";
        s %= 60;
        if (s == 0)
            return out;
    }
    return out + std::to_string(s) + "s";
}

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

std::string_view to_string(ramp_profile p) noexcept
{
    switch (p) {
    case ramp_profile::stepped: return "stepped";
    case ramp_profile::smooth: return "smooth";
    case ramp_profile::sharp: return "sharp";
    case ramp_profile::stages: return "stages";
    }
    return "?";
}

std::optional<ramp_profile> parse_ramp_profile(std::string_view text) noexcept
{
    for (auto p : {ramp_profile::stepped, ramp_profile::smooth, ramp_profile::sharp, ramp_profile::stages})
        if (to_string(p) == text)
            return p;
    return std::nullopt;
}

double ramp_users_at(const std::vector<ramp_stage>& stages, duration t) noexcept
{
    double from = 0;
    duration start{};
    for (const auto& st : stages) {
        auto end = start + st.length;
        if (t < end) {
            if (st.length.count() <= 0)
                return st.target;
            double f = double((t - start).count()) / double(st.length.count());
            return from + (double(st.target) - from) * f;
        }
        from = st.target;
        start = end;
    }
    return from;
}

std::vector<ramp_stage> ramp_stages(ramp_profile profile, std::uint32_t users, duration length, std::uint32_t spikes)
{
    std::vector<ramp_stage> out;
    auto part = [&](double fraction) { return duration{static_cast<std::int64_t>(double(length.count()) * fraction)}; };
    switch (profile) {
    case ramp_profile::stepped:
        // Four steps over 80 % of the run, each a riser of 30 % and a tread of 70 % of the step; then down over 20 %.
        for (int step = 1; step <= 4; ++step) {
            auto level = static_cast<std::uint32_t>(std::llround(double(users) * step / 4.0));
            out.push_back({part(0.2 * 0.3), level});
            out.push_back({part(0.2 * 0.7), level});
        }
        out.push_back({part(0.2), 0});
        break;
    case ramp_profile::smooth:
        out.push_back({part(0.8), users});
        out.push_back({part(0.2), 0});
        break;
    case ramp_profile::sharp: {
        // Square spikes: each period jumps to the peak for its first half and drops to zero for the second.
        auto n = std::max<std::uint32_t>(spikes, 1);
        auto period = part(1.0 / n);
        for (std::uint32_t i = 0; i < n; ++i) {
            out.push_back({duration{0}, users});
            out.push_back({period / 2, users});
            out.push_back({duration{0}, 0});
            out.push_back({period - period / 2, 0});
        }
        break;
    }
    case ramp_profile::stages:
        break;
    }
    return out;
}

namespace {

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

#define EXECBENCH_TRY(var, expr)            \
    auto var##_r = (expr);                  \
    if (!var##_r)                           \
        return var##_r.err();               \
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
                             "\"weight\"");
        if (auto e = rd.only(r, p, {"method", "path", "headers", "body_file", "weight"}))
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
        mix.push_back(std::move(spec));
    }
    return mix;
}

result<load_spec> parse_load(reader& rd, const json& v, const std::string& path)
{
    if (!v.is_object())
        return rd.err(path, "expected an object with \"shape\" and its numbers");
    if (auto e = rd.only(v, path,
                         {"shape", "connections", "requests", "rate", "duration", "think", "profile", "users",
                          "spikes", "stages"}))
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
                                   "connections"}) {
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
    if (v.contains("rate")) {
        if (!v["rate"].is_number() || !(v["rate"].get<double>() > 0) || v["rate"].get<double>() > 1e8)
            return rd.err(path + ".rate", "expected requests per second, a number in (0, 1e8]");
        l.rate = v["rate"].get<double>();
    }
    if (v.contains("duration")) {
        EXECBENCH_TRY(d, rd.get_duration(v["duration"], path + ".duration"));
        l.length = d;
    }
    if (v.contains("think")) {
        const auto& t = v["think"];
        if (t.is_object()) {
            if (auto e = rd.only(t, path + ".think", {"min", "max"}))
                return *e;
            if (!t.contains("min") || !t.contains("max"))
                return rd.err(path + ".think", "expected {\"min\": duration, \"max\": duration}");
            EXECBENCH_TRY(lo, rd.get_duration(t["min"], path + ".think.min"));
            EXECBENCH_TRY(hi, rd.get_duration(t["max"], path + ".think.max"));
            if (hi < lo)
                return rd.err(path + ".think", "expected min <= max");
            l.think_min = lo;
            l.think_max = hi;
        } else {
            EXECBENCH_TRY(d, rd.get_duration(t, path + ".think"));
            l.think_min = l.think_max = d;
        }
    } else if (l.kind == shape::ramp) {
        // The Java study's paced users sleep 1-3 s between requests.
        l.think_min = std::chrono::seconds{1};
        l.think_max = std::chrono::seconds{3};
    }
    if (v.contains("users")) {
        EXECBENCH_TRY(u, rd.get_uint(v["users"], path + ".users", 1, 1'000'000));
        l.users = static_cast<std::uint32_t>(u);
    }
    if (v.contains("spikes")) {
        EXECBENCH_TRY(n, rd.get_uint(v["spikes"], path + ".spikes", 1, 1000));
        l.spikes = static_cast<std::uint32_t>(n);
    }
    if (v.contains("profile")) {
        auto p = v["profile"].is_string() ? parse_ramp_profile(v["profile"].get<std::string>()) : std::nullopt;
        if (!p)
            return rd.err(path + ".profile", "expected one of stepped, smooth, sharp, stages");
        l.profile = *p;
    }
    if (v.contains("stages")) {
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
    }
    return l;
}

}  // namespace

std::uint64_t connections_needed(const scenario& s) noexcept
{
    auto one = [](const load_spec& l) -> std::uint64_t {
        switch (l.kind) {
        case shape::burst: return l.connections ? l.connections : l.requests;
        case shape::closed:
        case shape::open: return l.connections;
        case shape::ramp: {
            double peak = l.users;
            for (const auto& st : l.stages)
                peak = std::max(peak, double(st.target));
            return static_cast<std::uint64_t>(peak);
        }
        }
        return 0;
    };
    return one(s.load) + (s.background ? one(s.background->load) : 0);
}

namespace {

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
        if (l.kind == shape::open && l.rate <= 0)
            return err("rate", "missing; shape open needs a rate in requests per second");
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

}  // namespace

result<void> validate(const scenario& s, std::string_view where)
{
    auto w = std::string(where);
    if (s.mix.empty())
        return fail(w + ": requests: expected at least one request");
    if (auto r = validate_load(s.load, w, "load"); !r)
        return r;
    if (s.background) {
        if (s.background->load.kind != shape::burst && s.background->load.kind != shape::closed)
            return fail(w + ": background.load.shape: expected burst or closed");
        if (auto r = validate_load(s.background->load, w, "background.load"); !r)
            return r;
    }
    if (s.trials < 1)
        return fail(w + ": trials: expected an integer in 1..1000");
    if (s.timeout.count() <= 0)
        return fail(w + ": timeout: expected a duration greater than 0");
    return {};
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
                          "timeout", "connect_timeout", "server", "$comment"}))
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
        const auto& b = doc["background"];
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
        s.background = std::move(bg);
    }
    auto dur_field = [&](const char* name, duration& out) -> std::optional<error> {
        if (!doc.contains(name))
            return std::nullopt;
        auto d = rd.get_duration(doc[name], name);
        if (!d)
            return d.err();
        out = *d;
        return std::nullopt;
    };
    if (auto e = dur_field("warmup", s.warmup))
        return *e;
    if (auto e = dur_field("pause", s.pause))
        return *e;
    if (auto e = dur_field("timeout", s.timeout))
        return *e;
    if (auto e = dur_field("connect_timeout", s.connect_timeout))
        return *e;
    if (doc.contains("timeout") && s.timeout.count() == 0)
        return rd.err("timeout", "expected a duration greater than 0");
    if (doc.contains("connect_timeout") && s.connect_timeout.count() == 0)
        return rd.err("connect_timeout", "expected a duration greater than 0");
    if (doc.contains("trials")) {
        EXECBENCH_TRY(t, rd.get_uint(doc["trials"], "trials", 1, 1000));
        s.trials = static_cast<std::uint32_t>(t);
    }
    if (doc.contains("server")) {
        const auto& sv = doc["server"];
        if (!sv.is_object())
            return rd.err("server", "expected an object such as {\"downstream\": \"separate\"}");
        if (auto e = rd.only(sv, "server", {"downstream", "downstream_model", "database", "options"}))
            return *e;
        if (sv.contains("database")) {
            if (!sv["database"].is_string() || (sv["database"] != "sqlite" && sv["database"] != "postgresql"))
                return rd.err("server.database", "expected \"sqlite\" or \"postgresql\"");
            s.server.database = sv["database"].get<std::string>();
        }
        if (sv.contains("downstream")) {
            if (!sv["downstream"].is_string() ||
                (sv["downstream"] != "self" && sv["downstream"] != "separate"))
                return rd.err("server.downstream", "expected \"self\" or \"separate\"");
            s.server.downstream = sv["downstream"].get<std::string>();
        }
        if (sv.contains("downstream_model")) {
            const auto& m = sv["downstream_model"];
            if (!m.is_string() || (m != "pool" && m != "fiber" && m != "loop"))
                return rd.err("server.downstream_model", "expected one of pool, fiber, loop");
            s.server.downstream_model = m.get<std::string>();
        }
        if (sv.contains("options")) {
            const auto& o = sv["options"];
            if (!o.is_object())
                return rd.err("server.options", "expected an object of bench-server option names to values");
            for (auto it = o.begin(); it != o.end(); ++it) {
                if (it.value().is_string())
                    s.server.options[it.key()] = it.value().get<std::string>();
                else if (it.value().is_number() || it.value().is_boolean())
                    s.server.options[it.key()] = it.value().dump();
                else
                    return rd.err("server.options." + it.key(), "expected a string, number or boolean");
            }
        }
    }
    prepare_ramp(s.load);
    if (s.background)
        prepare_ramp(s.background->load);
    if (auto v = validate(s, where); !v)
        return v.err();
    return s;
}

#undef EXECBENCH_TRY

result<scenario> load_scenario_file(const std::filesystem::path& file)
{
    auto text = read_file(file);
    if (!text)
        return text.err();
    return parse_scenario(*text, file, file.parent_path());
}

result<std::filesystem::path> find_scenario_dir(const std::optional<std::filesystem::path>& override_dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (override_dir) {
        if (!fs::is_directory(*override_dir, ec))
            return fail("--scenarios-dir '" + override_dir->string() + "' is not a directory");
        return *override_dir;
    }
    if (fs::is_directory("scenarios", ec))
        return fs::path("scenarios");
#ifdef EXECBENCH_SCENARIOS_INSTALL_DIR
    if (fs::is_directory(EXECBENCH_SCENARIOS_INSTALL_DIR, ec))
        return fs::path(EXECBENCH_SCENARIOS_INSTALL_DIR);
    return fail("no scenario directory: looked for ./scenarios and " EXECBENCH_SCENARIOS_INSTALL_DIR
                "; pass --scenarios-dir");
#else
    return fail("no scenario directory: looked for ./scenarios; pass --scenarios-dir");
#endif
}

result<scenario> load_named_scenario(const std::filesystem::path& dir, std::string_view name)
{
    std::string file(name);
    if (file.size() < 5 || file.substr(file.size() - 5) != ".json")
        file += ".json";
    auto path = dir / file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        std::vector<std::string> known;
        for (const auto& e : list_scenarios(dir))
            known.push_back(e.name);
        auto guess = closest_match(name, known);
        return fail("scenario '" + std::string(name) + "' not found in " + dir.string() + "/" +
                    (guess ? "; did you mean " + *guess + "?" : std::string{}) + " (--list-scenarios lists them)");
    }
    return load_scenario_file(path);
}

bool natural_less(std::string_view a, std::string_view b) noexcept
{
    std::size_t i = 0, j = 0;
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            auto ei = i, ej = j;
            while (ei < a.size() && digit(a[ei]))
                ++ei;
            while (ej < b.size() && digit(b[ej]))
                ++ej;
            auto na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            na.remove_prefix(std::min(na.find_first_not_of('0'), na.size()));
            nb.remove_prefix(std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string>& candidates)
{
    std::optional<std::string> best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& c : candidates) {
        // Levenshtein distance over two rows.
        std::vector<std::size_t> prev(c.size() + 1), cur(c.size() + 1);
        std::iota(prev.begin(), prev.end(), std::size_t{0});
        for (std::size_t i = 1; i <= name.size(); ++i) {
            cur[0] = i;
            for (std::size_t k = 1; k <= c.size(); ++k)
                cur[k] = std::min({prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (name[i - 1] == c[k - 1] ? 0 : 1)});
            std::swap(prev, cur);
        }
        if (prev[c.size()] < best_distance) {
            best_distance = prev[c.size()];
            best = c;
        }
    }
    return best;
}

namespace {

/// The suite catalogue's order (docs/suites.md), which follows the studies: listings and runs keep it.
std::size_t suite_rank(const std::vector<std::string>& suites)
{
    static const std::vector<std::string_view> order{"reactive", "downstream",    "default",
                                                     "smoke",    "failure-modes", "shapes"};
    if (suites.empty())
        return order.size() + 1;
    auto it = std::find(order.begin(), order.end(), suites.front());
    return it == order.end() ? order.size() : static_cast<std::size_t>(it - order.begin());
}

bool studies_order(const scenario_entry& a, const scenario_entry& b)
{
    auto ra = suite_rank(a.suites), rb = suite_rank(b.suites);
    if (ra != rb)
        return ra < rb;
    auto sa = a.suites.empty() ? std::string{} : a.suites.front();
    auto sb = b.suites.empty() ? std::string{} : b.suites.front();
    if (sa != sb)
        return sa < sb;
    return natural_less(a.name, b.name);
}

}  // namespace

std::vector<scenario_entry> list_scenarios(const std::filesystem::path& dir)
{
    std::vector<scenario_entry> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".json")
            continue;
        scenario_entry e;
        e.name = entry.path().stem().string();
        auto s = load_scenario_file(entry.path());
        if (s) {
            e.suites = s->suites;
            e.description = s->description;
            e.load = s->load;
        } else {
            e.problem = s.err().message;
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), studies_order);
    return out;
}

std::string format_scenario_table(const std::vector<scenario_entry>& entries)
{
    std::vector<std::vector<std::string>> rows{{"name", "suites", "shape", "duration", "conns", "rate", "description"}};
    for (const auto& e : entries) {
        std::string suites;
        for (const auto& s : e.suites)
            suites += (suites.empty() ? "" : ",") + s;
        if (!e.problem.empty()) {
            rows.push_back({e.name, suites, "-", "-", "-", "-", "INVALID: " + e.problem});
            continue;
        }
        const auto& l = e.load;
        char rate[32] = "-";
        if (l.kind == shape::open)
            std::snprintf(rate, sizeof rate, "%g/s", l.rate);
        auto length = l.kind == shape::burst ? std::to_string(l.requests) + " req" : format_duration(l.length);
        auto conns = std::to_string(l.kind == shape::ramp ? l.users : l.connections ? l.connections : l.requests);
        rows.push_back({e.name, suites, std::string(to_string(l.kind)), length, conns, rate, e.description});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
        for (std::size_t i = 0; i + 1 < r.size(); ++i)
            width[i] = std::max(width[i], r[i].size());
    std::string out;
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < r.size(); ++i) {
            out += r[i];
            if (i + 1 < r.size())
                out += std::string(width[i] - r[i].size() + 2, ' ');
        }
        out += "\n";
    }
    return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> list_suites(const std::filesystem::path& dir)
{
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const auto& e : list_scenarios(dir)) {
        for (const auto& suite : e.suites) {
            auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == suite; });
            if (it == out.end()) {
                out.emplace_back(suite, std::vector<std::string>{});
                it = out.end() - 1;
            }
            it->second.push_back(e.name);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return suite_rank({a.first}) < suite_rank({b.first});
    });
    return out;
}

}  // namespace execbench::load
