#include "execbench/load/results/paths.hpp"

#include <string>

namespace execbench::load {

output_paths output_paths_for(const std::filesystem::path& summary_csv)
{
    auto stem = summary_csv;
    if (stem.extension() == ".csv")
        stem.replace_extension();
    auto with = [&](const std::string& suffix) { return std::filesystem::path(stem.string() + suffix); };
    return {summary_csv, with("-trials.csv"), with("-histograms.txt"), with("-timeline.csv"), with("-context.jsonl")};
}

capacity_paths capacity_paths_for(const std::filesystem::path& out)
{
    auto stem = out;
    stem.replace_extension();
    return {stem.string() + "-capacity-steps.csv", stem.string() + "-capacity.csv", stem.string() + "-context.jsonl"};
}

capacity_paths capacity_paths_in(const std::filesystem::path& folder_or_csv)
{
    // By its name, not by what is on disk: a study names the capacity folder before the step that writes it has
    // run, so a folder that does not exist yet is still a folder.
    std::error_code ec;
    if (folder_or_csv.extension() == ".csv" && !std::filesystem::is_directory(folder_or_csv, ec))
        return capacity_paths_for(folder_or_csv);
    auto folder = folder_or_csv.filename().empty() ? folder_or_csv.parent_path() : folder_or_csv;
    return capacity_paths_for(folder / (folder.filename().string() + ".csv"));
}

std::filesystem::path ledger_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-runs.csv");
}

std::filesystem::path reused_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-reused.jsonl");
}

std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-server-timeline.csv");
}

std::filesystem::path hlog_path(const std::filesystem::path& out_dir, std::string_view scenario, std::string_view arm)
{
    return out_dir / "hlog" / (std::string(scenario) + "-" + std::string(arm) + ".hlog");
}

std::filesystem::path profile_path(const std::filesystem::path& out_dir, std::string_view scenario,
                                   std::string_view arm, std::string_view extension)
{
    return out_dir / "profile" / (std::string(scenario) + "-" + std::string(arm) + "." + std::string(extension));
}

}  // namespace execbench::load
