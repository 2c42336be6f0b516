#include "execbench/load/scenario/scenario_catalogue.hpp"

#include "execbench/core/file.hpp"
#include "execbench/core/text.hpp"
#include "execbench/load/scenario/scenario_json.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace execbench::load {

result<scenario> load_scenario_file(const std::filesystem::path& file)
{
    auto text = read_file(file);
    if (!text)
        return text.err();
    return parse_scenario(*text, file, file.parent_path());
}

result<std::filesystem::path> find_scenario_dir(const std::optional<std::filesystem::path>& override_dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (override_dir) {
        if (!fs::is_directory(*override_dir, ec))
            return fail("--scenarios-dir '" + override_dir->string() + "' is not a directory");
        return *override_dir;
    }
    if (fs::is_directory("scenarios", ec))
        return fs::path("scenarios");
#ifdef EXECBENCH_SCENARIOS_INSTALL_DIR
    if (fs::is_directory(EXECBENCH_SCENARIOS_INSTALL_DIR, ec))
        return fs::path(EXECBENCH_SCENARIOS_INSTALL_DIR);
    return fail("no scenario directory: looked for ./scenarios and " EXECBENCH_SCENARIOS_INSTALL_DIR
                "; pass --scenarios-dir");
#else
    return fail("no scenario directory: looked for ./scenarios; pass --scenarios-dir");
#endif
}

result<scenario> load_named_scenario(const std::filesystem::path& dir, std::string_view name)
{
    std::string file(name);
    if (file.size() < 5 || file.substr(file.size() - 5) != ".json")
        file += ".json";
    auto path = dir / file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        auto known = scenario_names(dir);
        std::string starting;  // "smoke" offers smoketest and the smoke-* scenarios
        for (const auto& k : known)
            if (k.rfind(name, 0) == 0)
                starting += (starting.empty() ? "" : ", ") + k;
        auto guess = closest_match(name, known);
        std::string hint = guess ? "; did you mean " + *guess + "?" : std::string{};
        if (!starting.empty() && !guess)
            hint = "; did you mean one of: " + starting + "?";
        return fail("scenario '" + std::string(name) + "' not found in " + dir.string() + "/" + hint +
                    " (--list-scenarios lists them)");
    }
    return load_scenario_file(path);
}

bool natural_less(std::string_view a, std::string_view b) noexcept
{
    std::size_t i = 0, j = 0;
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            auto ei = i, ej = j;
            while (ei < a.size() && digit(a[ei]))
                ++ei;
            while (ej < b.size() && digit(b[ej]))
                ++ej;
            auto na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            na.remove_prefix(std::min(na.find_first_not_of('0'), na.size()));
            nb.remove_prefix(std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string>& candidates)
{
    std::optional<std::string> best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& c : candidates) {
        // Levenshtein distance over two rows.
        std::vector<std::size_t> prev(c.size() + 1), cur(c.size() + 1);
        std::iota(prev.begin(), prev.end(), std::size_t{0});
        for (std::size_t i = 1; i <= name.size(); ++i) {
            cur[0] = i;
            for (std::size_t k = 1; k <= c.size(); ++k)
                cur[k] = std::min({prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (name[i - 1] == c[k - 1] ? 0 : 1)});
            std::swap(prev, cur);
        }
        if (prev[c.size()] < best_distance) {
            best_distance = prev[c.size()];
            best = c;
        }
    }
    return best;
}

namespace {

/// The suite catalogue's order (docs/suites.md), which follows the studies: listings and runs keep it.
std::size_t suite_rank(const std::vector<std::string>& suites)
{
    static const std::vector<std::string_view> order{"reactive", "downstream",    "default",
                                                     "smoke",    "failure-modes", "shapes"};
    if (suites.empty())
        return order.size() + 1;
    auto it = std::find(order.begin(), order.end(), suites.front());
    return it == order.end() ? order.size() : static_cast<std::size_t>(it - order.begin());
}

bool studies_order(const scenario_entry& a, const scenario_entry& b)
{
    auto ra = suite_rank(a.suites), rb = suite_rank(b.suites);
    if (ra != rb)
        return ra < rb;
    auto sa = a.suites.empty() ? std::string{} : a.suites.front();
    auto sb = b.suites.empty() ? std::string{} : b.suites.front();
    if (sa != sb)
        return sa < sb;
    return natural_less(a.name, b.name);
}

}  // namespace

std::vector<scenario_entry> list_scenarios(const std::filesystem::path& dir)
{
    std::vector<scenario_entry> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".json")
            continue;
        scenario_entry e;
        e.name = entry.path().stem().string();
        auto s = load_scenario_file(entry.path());
        if (s) {
            e.suites = s->suites;
            e.description = s->description;
            e.load = s->load;
            e.parsed = std::move(*s);
        } else {
            e.problem = s.err().message;
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), studies_order);
    return out;
}

std::vector<std::string> scenario_names(const std::filesystem::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            out.push_back(entry.path().stem().string());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
    return out;
}

std::string format_scenario_table(const std::vector<scenario_entry>& entries)
{
    std::vector<std::vector<std::string>> rows{{"name", "suites", "shape", "duration", "conns", "rate", "description"}};
    for (const auto& e : entries) {
        std::string suites;
        for (const auto& s : e.suites)
            suites += (suites.empty() ? "" : ",") + s;
        if (!e.problem.empty()) {
            rows.push_back({e.name, suites, "-", "-", "-", "-", "INVALID: " + e.problem});
            continue;
        }
        const auto& l = e.load;
        std::string rate = "-";
        if (l.kind == shape::open && l.rate_from)
            rate = significant(l.rate_from->times, 6) + "x cap";  // each arm's capacity: the table is narrow
        else if (l.kind == shape::open)
            rate = significant(l.rate, 6) + "/s";
        auto length = l.kind == shape::burst ? std::to_string(l.requests) + " req" : format_duration(l.length);
        auto conns = std::to_string(l.kind == shape::ramp ? l.users : connections_of(l));
        rows.push_back({e.name, suites, std::string(to_string(l.kind)), length, conns, rate, e.description});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
        for (std::size_t i = 0; i + 1 < r.size(); ++i)
            width[i] = std::max(width[i], r[i].size());
    std::string out;
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < r.size(); ++i) {
            out += r[i];
            if (i + 1 < r.size())
                out += std::string(width[i] - r[i].size() + 2, ' ');
        }
        out += "\n";
    }
    return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> list_suites(const std::filesystem::path& dir)
{
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const auto& e : list_scenarios(dir)) {
        for (const auto& suite : e.suites) {
            auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == suite; });
            if (it == out.end()) {
                out.emplace_back(suite, std::vector<std::string>{});
                it = out.end() - 1;
            }
            it->second.push_back(e.name);
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return suite_rank({a.first}) < suite_rank({b.first}); });
    return out;
}

result<std::vector<scenario>> select_scenarios(const std::filesystem::path& dir, const std::string& suite,
                                               const std::vector<std::string>& named)
{
    auto unknown = [&](const std::string& name, const std::vector<std::string>& all) {
        auto guess = closest_match(name, all);
        return fail("--scenarios: no scenario '" + name + "' in " + dir.string() +
                    (guess ? "; did you mean " + *guess + "?" : std::string{}));
    };
    std::vector<scenario> out;
    if (suite.empty()) {
        // Only the named files are read; the directory's names serve the error's "did you mean".
        auto all = scenario_names(dir);
        for (const auto& name : named) {
            if (std::find(all.begin(), all.end(), name) == all.end())
                return unknown(name, all);
            auto s = load_named_scenario(dir, name);
            if (!s)
                return s.err();
            out.push_back(std::move(*s));
        }
        return out;
    }
    // Which files a suite holds is written in each file: every one is read, once.
    auto entries = list_scenarios(dir);
    std::vector<std::string> all;
    for (const auto& e : entries)
        all.push_back(e.name);
    for (const auto& name : named)
        if (std::find(all.begin(), all.end(), name) == all.end())
            return unknown(name, all);
    std::vector<const scenario_entry*> in_suite;
    for (const auto& e : entries)
        if (std::find(e.suites.begin(), e.suites.end(), suite) != e.suites.end())
            in_suite.push_back(&e);
    if (in_suite.empty()) {
        std::vector<std::string> suites;
        for (const auto& e : entries)
            for (const auto& x : e.suites)
                if (std::find(suites.begin(), suites.end(), x) == suites.end())
                    suites.push_back(x);
        auto guess = closest_match(suite, suites);
        return fail("--suite: no scenario in " + dir.string() + " lists suite '" + suite + "'" +
                    (guess ? "; did you mean " + *guess + "?" : std::string{}) +
                    " (bench-load --list-suites lists them)");
    }
    for (const auto& name : named)
        if (std::none_of(in_suite.begin(), in_suite.end(), [&](const scenario_entry* e) { return e->name == name; }))
            return fail("--scenarios: " + name + " is not in suite " + suite +
                        "; its results would be filed under it (drop --suite to run it on its own)");
    for (const auto* e : in_suite)
        if (named.empty() || std::find(named.begin(), named.end(), e->name) != named.end())
            out.push_back(e->parsed);
    return out;
}

}  // namespace execbench::load
