#pragma once

#include "execbench/core/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// Durations in the load generator: nanoseconds of the steady clock.
using duration = std::chrono::nanoseconds;

/// Parses "500ms", "3s", "2m", "1h", "250us" or a plain number of seconds ("1.5"); the error says what was expected.
result<duration> parse_duration(std::string_view text);
/// Formats a duration for people: "500ms", "3s", "2m30s".
std::string format_duration(duration d);

/// One kind of request in the mix; its bytes are prepared once per run.
struct request_spec {
    std::string method = "GET";
    std::string path = "/";                                    ///< path with query, starting with '/'
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers, in order
    std::string body_file;                                     ///< as written in the scenario (may be empty)
    std::string body;                                          ///< the file's contents, loaded by the parser
    unsigned weight = 1;                                       ///< share of the mix, 1..1000
};

/// How requests are issued over time.
enum class shape { burst, closed, open, ramp };
std::string_view to_string(shape s) noexcept;
std::optional<shape> parse_shape(std::string_view text) noexcept;
/// Whether shape `s` uses the load field `field` ("rate", "requests", "duration", ...); unknown fields: true.
bool field_used_by(std::string_view field, shape s) noexcept;
/// The shapes that use `field`, for messages: "closed, open or ramp".
std::string shapes_using(std::string_view field);

/// Built-in ramp profiles (the Loom/WebFlux study's spikes) or explicit stages.
enum class ramp_profile { stepped, smooth, sharp, stages };
std::string_view to_string(ramp_profile p) noexcept;
std::optional<ramp_profile> parse_ramp_profile(std::string_view text) noexcept;

/// One ramp stage in k6's sense: move linearly from the previous target to `target` users over `length`
/// (a zero length is a jump).
struct ramp_stage {
    duration length{};
    std::uint32_t target = 0;
};

/// The numbers of a load shape. Which fields matter depends on `kind`; docs/scenarios.md lists them.
struct load_spec {
    shape kind = shape::closed;
    std::uint32_t connections = 0;        ///< burst: default = requests; closed/open: required; ramp: = max users
    std::uint64_t requests = 0;           ///< burst: requests in total
    double rate = 0;                      ///< open: requests per second
    duration length{};                    ///< closed/open/ramp: how long requests are issued
    duration think_min{};                 ///< closed/ramp: pause between a response and the next request
    duration think_max{};
    ramp_profile profile = ramp_profile::smooth;
    std::uint32_t users = 0;              ///< ramp: peak virtual users
    std::uint32_t spikes = 10;            ///< ramp sharp: number of square spikes
    std::vector<ramp_stage> stages;       ///< ramp: explicit stages, or the expansion of `profile`
};

/// Target users of a ramp at `t` since its start (piecewise linear over `stages`).
double ramp_users_at(const std::vector<ramp_stage>& stages, duration t) noexcept;
/// Expands a built-in profile into stages for `users` peak users over `length`.
std::vector<ramp_stage> ramp_stages(ramp_profile profile, std::uint32_t users, duration length,
                                    std::uint32_t spikes = 10);

/// A load that runs before and beside the measured one (e.g. 150 /cpu while 20 /io are measured).
struct background_spec {
    std::vector<request_spec> mix;
    load_spec load;
    duration delay{};  ///< extra wait after every background request has been sent, before the foreground starts
};

/// What the server under test needs; honoured by a suite runner, recorded in results context by bench-load.
struct server_spec {
    std::string downstream = "self";   ///< "self" or "separate" (a second server started by the runner)
    std::string downstream_model = "loop";
    std::string database = "sqlite";   ///< "sqlite" (in the server) or "postgresql" (a throwaway cluster per run)
    std::map<std::string, std::string> options;  ///< extra bench-server options, e.g. {"threads": "4"}
};

/// The factor a scenario's users, connections and rates were multiplied by (issue 15; load/scale.hpp): 1 as written.
struct scale_label {
    double factor = 1;
    std::string decided_by;   ///< "generator", "server", "downstream" (fit to limits), "--scale", or "" when 1
    std::string unscaled;     ///< the figures as written, e.g. "20,000 peak users" ("" when 1)
    std::string reason;       ///< why a limit decided, e.g. "the server needs about 30,064 open files, may open 20,000"
};

/// A named scenario, as read from scenarios/<name>.json.
struct scenario {
    std::string name;                 ///< file name without extension
    std::filesystem::path file;       ///< where it was read from (empty for ad-hoc runs)
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
    server_spec server;
    scale_label scale;                ///< set by scale_scenario, never read from a file
};

/// Parses scenario JSON. `file` names the source in error messages; `body_dir` resolves body_file entries.
/// Every mistake is rejected with "<file>: <field>: <what was expected>".
result<scenario> parse_scenario(std::string_view json_text, const std::filesystem::path& file,
                                const std::filesystem::path& body_dir);
/// Reads and parses a scenario file; the scenario is named after the file.
result<scenario> load_scenario_file(const std::filesystem::path& file);
/// Derives a ramp's stages from its profile (or its length and peak from explicit stages) and sets its
/// connections to the peak; call again after changing a ramp's numbers.
void prepare_ramp(load_spec& l);
/// Checks cross-field rules (e.g. an open shape needs a rate); used after parsing and after CLI overrides.
result<void> validate(const scenario& s, std::string_view where);

/// Where scenarios are looked up: `override_dir` if given, else ./scenarios, else the installed share directory.
result<std::filesystem::path> find_scenario_dir(const std::optional<std::filesystem::path>& override_dir);
/// Loads `name` (with or without .json) from `dir`.
result<scenario> load_named_scenario(const std::filesystem::path& dir, std::string_view name);

/// One line of `--list-scenarios`.
struct scenario_entry {
    std::string name;
    std::vector<std::string> suites;
    std::string description;
    load_spec load;       ///< its foreground load, for the shape columns
    std::string problem;  ///< non-empty when the file did not parse
};
/// All scenario files in `dir` in the studies' order: grouped by their first suite in the catalogue's order
/// (docs/suites.md: reactive, downstream, default, smoke, failure-modes, shapes, then others by name), and in
/// natural order inside a group (1k before 5k before 10k before 20k).
std::vector<scenario_entry> list_scenarios(const std::filesystem::path& dir);
/// The `--list-scenarios` table: name, suites, shape, duration, connections or users, rate, description (or the
/// reason a file is invalid).
std::string format_scenario_table(const std::vector<scenario_entry>& entries);
/// Every suite named by a scenario in `dir`, in the catalogue's order, with its scenarios in run order.
std::vector<std::pair<std::string, std::vector<std::string>>> list_suites(const std::filesystem::path& dir);

/// "a2" < "a10": digits compare as numbers.
bool natural_less(std::string_view a, std::string_view b) noexcept;
/// The candidate closest to `name` by edit distance, when it is close enough to be a typo of it.
std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string>& candidates);

/// Peak number of sockets a scenario opens at once (foreground plus background).
std::uint64_t connections_needed(const scenario& s) noexcept;

}  // namespace execbench::load
