#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/record/profile_record.hpp"
#include "execbench/load/results/paths.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// Folded stacks as text, one "stack samples" line each, and back; the error names the line.
std::string format_folded(const folded_stacks& stacks);
result<folded_stacks> parse_folded(std::string_view text);

/// A function's self time: the samples in which it was the innermost frame.
struct self_time {
    std::string function;
    std::uint64_t samples = 0;
    double percent = 0;  ///< of all samples
};
/// The `count` functions with the most self time, most first (ties by name).
std::vector<self_time> top_self_time(const folded_stacks& stacks, std::size_t count);




/// The CSV text of a record (header first), and back; the error names the file or the bad field.
std::string format_profile_csv(const profile_record& r);
result<profile_record> read_profile_csv(const std::filesystem::path& file);

/// Writes a capture's flame graph, stacks (when perf record ran) and counts, replacing earlier ones of the same
/// scenario and arm in `<out_dir>/profile/`.
result<void> write_profile(const profile_capture& c, const std::filesystem::path& out_dir);

}  // namespace execbench::load
