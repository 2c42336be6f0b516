#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/arm_spec.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// The bench-server options an arm may set, e.g. "threads", "fiber-stack-kb".
const std::vector<std::string>& arm_option_names();

/// Parses `NAME=MODEL[:OPTION=VALUE,...]` (e.g. "pool400=pool:threads=400"), `NAME=cmd:COMMAND` (e.g.
/// "nginx=cmd:nginx -c /etc/x.conf -g 'daemon off; listen {port};'") or `NAME=url:http://127.0.0.1:8080`. The error
/// says what is wrong.
result<arm_spec> parse_arm(std::string_view text);
/// One arm per model, named after it (what `--models` means).
result<std::vector<arm_spec>> arms_of_models(const std::vector<std::string>& models);
/// Fails when two arms share a name or there are none.
result<void> check_arms(const std::vector<arm_spec>& arms);
/// Fails, naming the arm, when a `url:` arm's server does not answer now (on `ready_path` with 2xx when one is
/// given, else with any HTTP answer): checked before a suite starts, as bench-load checks its target. Other arms pass.
result<void> check_running(const arm_spec& a, std::string_view ready_path);

/// Appends a bench-server flag: `--name value`, a bare `--name` for "true", nothing for "false".
void append_server_flag(std::vector<std::string>& args, const std::string& name, const std::string& value);
/// bench-server arguments for a model arm: `--model M` then `--OPTION VALUE` (a bare flag for "true").
std::vector<std::string> arm_server_args(const arm_spec& a);

}  // namespace execbench::load
