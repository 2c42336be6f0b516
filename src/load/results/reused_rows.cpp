#include "execbench/load/results/reused_rows.hpp"

#include "execbench/core/file.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace execbench::load {

std::string to_json(const reused_row& r)
{
    nlohmann::json j = {{"scenario", r.scenario}, {"arm", r.arm},   {"kind", r.kind},
                        {"run_id", r.run_id},     {"from", r.from}, {"study", r.study}};
    return j.dump();
}

result<std::vector<reused_row>> read_reused_rows(const std::filesystem::path& file)
{
    std::vector<reused_row> out;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        return out;
    auto text = read_file(file);
    if (!text)
        return text.err();
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            continue;
        out.push_back({j.value("scenario", ""), j.value("arm", ""), j.value("kind", ""), j.value("run_id", ""),
                       j.value("from", ""), j.value("study", "")});
    }
    return out;
}

}  // namespace execbench::load
