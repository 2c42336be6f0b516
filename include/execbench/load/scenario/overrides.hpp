#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// Command-line values that describe an ad-hoc run or override a scenario's; unset fields keep the scenario's.
struct overrides {
    std::optional<std::string> path;  ///< replaces the request mix with one request
    std::optional<std::string> method;
    std::optional<std::filesystem::path> body_file;
    std::vector<std::string> headers;  ///< "Name: value"
    std::optional<std::string> shape;
    std::optional<std::uint32_t> connections;
    std::optional<std::uint64_t> requests;
    std::optional<double> rate;
    std::optional<std::string> duration;
    std::optional<std::string> think;  ///< "2s" or "1s..3s"
    std::optional<std::uint32_t> pipeline;  ///< requests a connection carries at once (closed, open)
    /// --reconnect-every N: a connection closes after N requests (load.requests_per_connection); 1: every request
    /// on a new connection
    std::optional<std::uint32_t> reconnect_every;
    std::optional<std::string> tls_resume;  ///< --tls-resume on|off (scenario key tls_resume)
    bool http2 = false;                     ///< --http2: the load speaks HTTP/2 (scenario key "protocol": "h2")
    std::optional<std::uint32_t> streams;   ///< --streams N: HTTP/2 streams per connection (scenario key streams)
    std::optional<std::uint32_t> trials;
    std::optional<std::string> warmup;
    std::optional<std::string> timeout;
    std::optional<std::string> pause;
    std::optional<double> scale;  ///< --scale: applied last, to the overridden figures (load/scale.hpp)
    /// --time-scale: the timeline times F, applied last with --scale (load/scale.hpp, compress_scenario)
    std::optional<double> time_scale;
};

/// Applies `o` to `s` and validates the result; errors name the flag. A load flag the resulting shape does not use
/// is an error ("--rate: not used by shape closed; add --shape open"); on an ad-hoc run `--rate` alone implies the
/// open shape and `--requests` alone the burst shape. Returns those implications as notes for the user.
result<std::vector<std::string>> apply_overrides(scenario& s, const overrides& o);

/// The scenario of an ad-hoc run (no --scenario): GET /epoch-millis in closed loop unless the flags say otherwise.
scenario ad_hoc_scenario();
/// True for the scenario of an ad-hoc run (it comes from no file).
bool is_ad_hoc(const scenario& s) noexcept;

/// The load flags of `o` ("--rate", "--duration", ...) that the shape of `s` does not use.
std::vector<std::string> unused_flags(const scenario& s, const overrides& o);
/// `o` without the load flags the shape of `s` does not use: a suite-wide override applies where it can.
overrides used_by(const scenario& s, overrides o);
/// Checks suite-wide overrides before anything runs: an error naming the flag when a value is wrong or a flag
/// applies to none of `scenarios`; notes naming the scenarios a flag does not apply to when it applies to some.
result<std::vector<std::string>> check_suite_overrides(const std::vector<scenario>& scenarios, const overrides& o);

}  // namespace execbench::load
