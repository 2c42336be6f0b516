#include "execbench/load/run/arm.hpp"

#include "execbench/core/model_names.hpp"
#include "execbench/core/text.hpp"
#include "execbench/http/url.hpp"
#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/http_request.hpp"
#include "execbench/load/scenario/duration.hpp"

#include <algorithm>
#include <cctype>

namespace execbench::load {

namespace {

constexpr std::string_view command_prefix = "cmd:";
constexpr std::string_view url_prefix = "url:";

bool valid_name(std::string_view name)
{
    return !name.empty() && name.size() <= 40 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
}

bool is_number(std::string_view v)
{
    auto digit_or_point = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; };
    return !v.empty() && std::all_of(v.begin(), v.end(), digit_or_point) && std::count(v.begin(), v.end(), '.') <= 1 &&
           v.front() != '.';
}

result<std::string> check_model(std::string_view model)
{
    if (is_model_name(model))
        return std::string(model);
    return fail("model '" + std::string(model) + "' is not one of " + joined_model_names());
}

}  // namespace

const std::vector<std::string>& arm_option_names()
{
    // The flags of bench-server that change how a model serves; --cpus is set for every arm alike by
    // --server-cpus so that pinning cannot differ between arms.
    static const std::vector<std::string> names{"threads",
                                                "cpu-threads",
                                                "queue",
                                                "backlog",
                                                "fiber-stack-kb",
                                                "header-timeout",
                                                "idle-timeout",
                                                "downstream-timeout",
                                                "downstream-client",
                                                "downstream-connections",
                                                "downstream-queue",
                                                "shutdown-timeout",
                                                "movies-read-only",
                                                "movies-cache",
                                                "db-pool",
                                                "db-timeout"};
    return names;
}

result<arm_spec> parse_arm(std::string_view text)
{
    auto bad = [&](const std::string& why) -> result<arm_spec> {
        return fail("--arm '" + std::string(text) + "': " + why +
                    " (expected NAME=MODEL[:OPTION=VALUE,...], NAME=cmd:'COMMAND {port}' or NAME=url:http://HOST:PORT)");
    };
    auto eq = text.find('=');
    if (eq == std::string_view::npos)
        return bad("no '=' between the name and the model");
    arm_spec a;
    a.name = std::string(text.substr(0, eq));
    if (!valid_name(a.name))
        return bad("the name '" + a.name + "' must be 1-40 letters, digits, '-', '_' or '.'");
    auto rest = text.substr(eq + 1);
    if (rest.starts_with(command_prefix)) {
        a.command = std::string(rest.substr(command_prefix.size()));
        if (a.command.find_first_not_of(" \t") == std::string::npos)
            return bad("no command after 'cmd:'");
        if (a.command.find(port_placeholder) == std::string::npos)
            return bad("the command has no {port}: the server must listen on the port bench-suite picks");
        return a;
    }
    if (rest.starts_with(url_prefix)) {
        auto u = http::parse_url(rest.substr(url_prefix.size()), http::schemes::http_or_https);
        if (!u)
            return bad(u.err().message);
        if (!http::is_loopback_literal(u->host))
            return bad("'" + u->host + "' is not a loopback address: load goes only to this machine (127.0.0.0/8)");
        if (u->target != "/")
            return bad("give the server's address without a path (each scenario names its own paths)");
        a.url = std::string(u->scheme()) + "://" + u->authority();
        return a;
    }
    auto colon = rest.find(':');
    auto model = check_model(rest.substr(0, colon));
    if (!model)
        return bad(model.err().message);
    a.model = *model;
    if (colon == std::string_view::npos)
        return a;
    auto opts = rest.substr(colon + 1);
    if (opts.empty())
        return bad("no options after ':'");
    const auto& known = arm_option_names();
    for (auto item : split_fields(opts, ',')) {
        auto oeq = item.find('=');
        if (oeq == std::string_view::npos || oeq == 0 || oeq + 1 == item.size())
            return bad("option '" + std::string(item) + "' is not OPTION=VALUE");
        std::string name(item.substr(0, oeq));
        std::string value(item.substr(oeq + 1));
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            std::string list;
            for (const auto& k : known)
                list += (list.empty() ? "" : ", ") + k;
            return bad("unknown option '" + name + "' (known: " + list + ")");
        }
        // bench-server takes its timeouts as seconds or with a unit, as scenarios write durations.
        const bool timeout = name.ends_with("-timeout");
        if (name == "downstream-client") {
            if (!is_downstream_client_name(value))
                return bad("option downstream-client: '" + value + "' is not one of " +
                           join(std::vector<std::string>(downstream_client_names.begin(), downstream_client_names.end()), ", "));
        } else if (name == "movies-read-only" ? (value != "true" && value != "false")
                                              : !is_number(value) && !(timeout && parse_duration(value))) {
            return bad("option " + name + ": '" + value + "' is not " +
                       (name == "movies-read-only" ? "true or false"
                        : timeout                  ? "a number of seconds or a duration (500ms, 2m)"
                                                   : "a number"));
        }
        if (std::any_of(a.options.begin(), a.options.end(), [&](const auto& o) { return o.first == name; }))
            return bad("option " + name + " given twice");
        a.options.emplace_back(std::move(name), std::move(value));
    }
    return a;
}

result<std::vector<arm_spec>> arms_of_models(const std::vector<std::string>& models)
{
    std::vector<arm_spec> out;
    for (const auto& m : models) {
        auto checked = check_model(m);
        if (!checked)
            return fail("--models: " + checked.err().message);
        out.push_back({m, m, {}});
    }
    return out;
}

result<void> check_arms(const std::vector<arm_spec>& arms)
{
    if (arms.empty())
        return fail("no arms to run");
    for (std::size_t i = 0; i < arms.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (arms[i].name == arms[j].name)
                return fail("arm name '" + arms[i].name + "' is used twice; give each --arm its own name");
    return {};
}

result<void> check_running(const arm_spec& a, std::string_view ready_path)
{
    if (a.kind() != arm_kind::url)
        return {};
    auto where = resolve_target(a.url, false);
    if (!where)
        return fail("--arm " + a.name + ": " + where.err().message);
    const std::string path = ready_path.empty() ? where->base_path + "/" : std::string(ready_path);
    auto answer = detail::http_get(detail::request_peer::of(*where), path, std::chrono::seconds(5));
    if (!answer)
        return fail("--arm " + a.name + "=url:" + a.url + ": " + answer.err().message +
                    "; a url: arm is a server already running (start it first, or give it as cmd:)");
    if (!ready_path.empty() && (answer->status < 200 || answer->status >= 300))
        return fail("--arm " + a.name + "=url:" + a.url + ": GET " + path + " (--ready-path) answered " +
                    std::to_string(answer->status) + ", not 2xx");
    return {};
}

void append_server_flag(std::vector<std::string>& args, const std::string& name, const std::string& value)
{
    if (value == "false")
        return;
    args.push_back("--" + name);
    if (value != "true")
        args.push_back(value);
}

std::vector<std::string> arm_server_args(const arm_spec& a)
{
    std::vector<std::string> out{"--model", a.model};
    for (const auto& [name, value] : a.options)
        append_server_flag(out, name, value);
    return out;
}

}  // namespace execbench::load
