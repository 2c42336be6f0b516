#pragma once

#include "execbench/core/result.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// One side of a comparison: a name, a model and the bench-server options it runs with (bench-suite --arm).
struct arm_spec {
    std::string name;                                          ///< labels every CSV row, page and chart
    std::string model;                                         ///< pool, fiber or loop
    std::vector<std::pair<std::string, std::string>> options;  ///< bench-server option (no "--") and value
};

/// The bench-server options an arm may set, e.g. "threads", "fiber-stack-kb".
const std::vector<std::string>& arm_option_names();

/// Parses `NAME=MODEL[:OPTION=VALUE,...]`, e.g. "pool400=pool:threads=400". The error says what is wrong.
result<arm_spec> parse_arm(std::string_view text);
/// One arm per model, named after it (what `--models` means).
result<std::vector<arm_spec>> arms_of_models(const std::vector<std::string>& models);
/// Fails when two arms share a name or there are none.
result<void> check_arms(const std::vector<arm_spec>& arms);

/// Appends a bench-server flag: `--name value`, a bare `--name` for "true", nothing for "false".
void append_server_flag(std::vector<std::string>& args, const std::string& name, const std::string& value);
/// bench-server arguments for an arm: `--model M` then `--OPTION VALUE` (a bare flag for "true").
std::vector<std::string> arm_server_args(const arm_spec& a);

}  // namespace execbench::load
