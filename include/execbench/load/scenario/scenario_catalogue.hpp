#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// Reads and parses a scenario file; the scenario is named after the file.
result<scenario> load_scenario_file(const std::filesystem::path& file);
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
    scenario parsed;      ///< the whole scenario, when it parsed: a caller that runs it need not read it again
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

/// The names of the scenario files in `dir` (without .json), sorted, without reading them.
std::vector<std::string> scenario_names(const std::filesystem::path& dir);

/// "a2" < "a10": digits compare as numbers.
bool natural_less(std::string_view a, std::string_view b) noexcept;
/// The candidate closest to `name` by edit distance, when it is close enough to be a typo of it.
std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string>& candidates);

/// The scenarios a suite run runs, each file read once: the suite's, narrowed to `named` when it names any (a name
/// outside the suite is an error: its results would be filed under a suite it does not belong to), or `named` alone
/// when `suite` is empty (then only the named files are read). Errors name the flag (--suite, --scenarios) and a
/// close match.
result<std::vector<scenario>> select_scenarios(const std::filesystem::path& dir, const std::string& suite,
                                               const std::vector<std::string>& named);

}  // namespace execbench::load
