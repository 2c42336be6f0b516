#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/run_context.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// A run's context (load/record/run_context.hpp) as one JSON object on one line, keys in sorted order: the only place
/// its keys are spelled, with `parse_context`.
std::string to_json(const run_context& c);
/// Reads a line `to_json` wrote, of this or an earlier schema (a field an earlier one lacks keeps its default); fails
/// when the line is not a JSON object, or states a schema newer than this build reads.
result<run_context> parse_context(std::string_view line);
/// A line of a context file read back (parse_context): nothing when it is not a JSON object (a line cut short by a
/// crash, or written by hand), which readers skip; fails, naming `where`, when its schema is newer than this build's.
result<std::optional<run_context>> read_context_line(std::string_view line, std::string_view where);
/// Every context of a context file, in its order (read_context_line: lines that are not JSON objects are skipped);
/// none when the file does not exist; fails, naming the file and line, on a schema newer than this build's.
result<std::vector<run_context>> read_context_file(const std::filesystem::path& file);
/// The schema a context line states (its "schema"; unversioned_schema when it states none or is not a JSON object);
/// fails, naming `where` and both versions, when it is newer than this build reads.
result<unsigned> context_schema(std::string_view line, std::string_view where);

}  // namespace execbench::load
