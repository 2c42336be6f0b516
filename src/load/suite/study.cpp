#include "execbench/load/suite/study.hpp"

#include "execbench/core/file.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace execbench::load {

namespace {

using json = nlohmann::json;

/// Flags that belong to the study as a whole (the folders, the plan, starting over), not to one of its suites.
constexpr std::string_view refused_flags[] = {"--suite", "--out",  "--out-dir", "--results-dir", "--study",
                                              "--plan",  "--fresh", "--rerun",   "--reuse-from"};

result<std::vector<std::string>> strings_of(const json& value, const std::string& where)
{
    if (!value.is_array())
        return fail(where + " must be a list of strings");
    std::vector<std::string> out;
    for (const auto& v : value) {
        if (!v.is_string())
            return fail(where + " must be a list of strings");
        out.push_back(v.get<std::string>());
    }
    return out;
}

result<study_step> step_of(const json& entry, const std::string& where)
{
    if (!entry.is_object())
        return fail(where + " must be an object with \"suite\"");
    study_step step;
    for (const auto& [key, value] : entry.items()) {
        if (key == "suite" && value.is_string()) {
            step.suite = value.get<std::string>();
        } else if (key == "about" && value.is_string()) {
            step.about = value.get<std::string>();
        } else if (key == "folder" && value.is_string()) {
            step.folder = value.get<std::string>();
            if (step.folder.empty() || step.folder.find('/') != std::string::npos || step.folder.starts_with('.'))
                return fail(where + ": \"folder\" is one folder name under the results root");
        } else if (key == "args") {
            auto args = strings_of(value, where + ".args");
            if (!args)
                return args.err();
            step.args = std::move(*args);
        } else if (key == "reuse") {
            auto reuse = strings_of(value, where + ".reuse");
            if (!reuse)
                return reuse.err();
            step.reuse = std::move(*reuse);
        } else {
            return fail(where + ": unknown key or wrong type \"" + key +
                        "\" (a step has suite, folder, args, reuse, about)");
        }
    }
    if (step.suite.empty())
        return fail(where + ": no \"suite\"");
    for (const auto& a : step.args)
        for (auto refused : refused_flags)
            if (a == refused || a.starts_with(std::string(refused) + "="))
                return fail(where + " (" + step.suite + "): " + a +
                            " is not a study step's to set: the folder is \"folder\", the folders reused are "
                            "\"reuse\", and --plan, --fresh and the results root belong to the whole study");
    return step;
}

}  // namespace

result<study> read_study(const std::filesystem::path& file)
{
    auto text = read_file(file);
    if (!text)
        return text.err();
    auto body = json::parse(*text, nullptr, false);
    if (body.is_discarded() || !body.is_object())
        return fail(file.string() + ": not a JSON object");
    study out;
    out.name = file.stem().string();
    std::set<std::string> seen;
    for (const auto& [key, value] : body.items()) {
        if (key == "about" && value.is_string()) {
            out.about = value.get<std::string>();
        } else if (key == "suites" && value.is_array()) {
            for (std::size_t i = 0; i < value.size(); ++i) {
                auto step = step_of(value[i], file.string() + ": suites[" + std::to_string(i) + "]");
                if (!step)
                    return step.err();
                for (const auto& r : step->reuse)
                    if (!seen.contains(r))
                        return fail(file.string() + ": suites[" + std::to_string(i) + "] (" + step->folder_name() +
                                    ") reuses folder " + r + ", which no earlier step writes");
                if (!seen.insert(step->folder_name()).second)
                    return fail(file.string() + ": two steps write folder " + step->folder_name() +
                                " (give one of them its own \"folder\")");
                out.steps.push_back(std::move(*step));
            }
        } else {
            return fail(file.string() + ": unknown key or wrong type \"" + key + "\" (a study has about, suites)");
        }
    }
    if (out.steps.empty())
        return fail(file.string() + ": no suites");
    return out;
}

}  // namespace execbench::load
