#include "execbench/load/suite/reuse.hpp"

#include "execbench/core/cpus.hpp"
#include "execbench/core/file.hpp"
#include "execbench/load/results/context.hpp"
#include "execbench/load/results/paths.hpp"
#include "execbench/load/results/reused_rows.hpp"
#include "execbench/load/suite/suite.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace execbench::load {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// FNV-1a of a scenario file's bytes: what the context's scenario leaves out (headers, bodies, a search's settings)
/// still counts in the comparison.
std::string digest_of(std::string_view bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char ch : bytes)
        h = (h ^ ch) * 0x100000001b3ULL;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

/// A source's piece `key`, when the source qualifies for it (reusable's conditions); nullptr otherwise, and `why`
/// says why when the source holds the piece but does not qualify.
const journal_piece* qualifying_piece(const journal_contents& j, const journal_key& key, const std::string& settings,
                                      const std::string& digest, const std::string& machine,
                                      std::string* why = nullptr)
{
    const journal_piece* found = nullptr;
    std::size_t times = 0;
    for (const auto& p : j.pieces)
        if (p.key == key) {
            found = &p;
            ++times;
        }
    auto refuse = [&](std::string text) -> const journal_piece* {
        if (why)
            *why = std::move(text);
        return nullptr;
    };
    if (!found)
        return nullptr;
    if (j.source_digests.size() != 1 || *j.source_digests.begin() != digest)
        return refuse("it ran there from other sources than this build's");
    // A suite's verdicts compare its arms: a copied piece must come from the machine the others run on.
    if (j.machines.contains(""))
        return refuse("its journal does not say which machine ran it");
    if (j.machines.size() != 1 || *j.machines.begin() != machine)
        return refuse("it ran there on another machine (" + *j.machines.begin() + ")");
    if (times > 1)  // --rerun: a file written whole no longer holds the first run's bytes
        return refuse("it ran there more than once");
    if (!found->facts.from)
        return refuse("its journal line predates reuse (no file sizes before it)");
    if (found->facts.settings != settings)
        return refuse("it ran there under other settings");
    return found;
}

/// A file written whole per piece (hlog/, profile/), not appended to.
bool written_whole(const std::string& name)
{
    return name.starts_with("hlog/") || name.starts_with("profile/");
}

/// A file whose first line names its columns (the CSVs, the histograms file's comment).
bool has_header(const std::string& name)
{
    return !written_whole(name) && (name.ends_with(".csv") || name.ends_with(".txt"));
}

/// The first line of `text`, its line end included; empty when it has none.
std::string_view first_line(std::string_view text)
{
    auto end = text.find('\n');
    return end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 1);
}

/// One file's part of a copy: what to append to which file.
struct appended {
    fs::path file;
    std::string bytes;
};

/// The appends that copy `piece` of source `src` (stem `src_suite`) into suite `o`, or why they cannot be made
/// exactly: checked whole before anything is written.
result<std::vector<appended>> plan_copy(const suite_options& o, const fs::path& src, const std::string& src_suite,
                                        const journal_piece& piece)
{
    std::vector<appended> out;
    const auto skipped = reused_path(src, src_suite).filename().string();  // each folder notes its own copies
    for (const auto& [name, to] : piece.to) {
        auto at = piece.facts.from->find(name);
        std::uintmax_t from = at == piece.facts.from->end() ? 0 : at->second;
        if (to == from || name == skipped)
            continue;
        if (to < from)
            return fail(name + " shrank while the piece was filed");
        std::string here = name;
        if (name.starts_with(src_suite + ".") || name.starts_with(src_suite + "-"))
            here = o.suite + name.substr(src_suite.size());
        else if (!written_whole(name))
            return fail(name + " is no file of suite " + src_suite);
        auto text = read_file(src / name);
        if (!text)
            return text.err();
        if (text->size() < to)
            return fail(name + " is shorter than its journal says");
        std::string_view range(text->data() + from, to - from);
        std::error_code ec;
        auto dest = o.out_dir / here;
        auto dest_size = fs::exists(dest, ec) ? fs::file_size(dest, ec) : 0;
        if (written_whole(name)) {
            if (from != 0 || dest_size != 0)
                return fail(here + " is written whole, and was there before the piece (or is here already)");
            out.push_back({dest, std::string(range)});
            continue;
        }
        // Rows are whole lines: a range that starts or ends inside one is not the piece's.
        if ((from > 0 && (*text)[from - 1] != '\n') || range.back() != '\n')
            return fail(name + ": the journal's range does not hold whole lines");
        std::string_view header = has_header(name) ? first_line(*text) : std::string_view{};
        if (!header.empty() && dest_size > 0) {
            auto mine = read_file(dest);
            if (!mine || first_line(*mine) != header)
                return fail(here + " has other columns than " + name);
        }
        std::string bytes;
        if (from == 0 && !header.empty()) {
            if (!range.starts_with(header))
                return fail(name + ": the range does not start with the file's header");
            bytes = dest_size > 0 ? std::string(range.substr(header.size())) : std::string(range);
        } else {
            bytes = (dest_size == 0 ? std::string(header) : std::string{}) + std::string(range);
        }
        out.push_back({dest, std::move(bytes)});
    }
    return out;
}

/// Appends `bytes` to `file`, made with its folder when new; every byte or an error.
result<void> append_bytes(const fs::path& file, std::string_view bytes)
{
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(file.string() + ": cannot be written: " + std::strerror(errno));
    while (!bytes.empty()) {
        auto n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = errno;
            ::close(fd);
            return fail(file.string() + ": cannot be written: " + std::strerror(n < 0 ? err : EIO));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    ::close(fd);
    return {};
}

}  // namespace

std::string piece_settings(const suite_options& o, const scenario& s, const arm_spec& arm, journal_kind kind)
{
    if (takes_rate_from_capacity(s))
        return {};
    run_context c;
    c.scenario_used = s;
    c.arm = arm;
    auto context = json::parse(to_json(c), nullptr, false);
    std::string file_digest;
    if (!s.file.empty())
        if (auto text = read_file(s.file))
            file_digest = digest_of(*text);
    json out = {{"kind", std::string(to_string(kind))},
                {"scenario", context.value("scenario", json::object())},
                {"scenario_file", file_digest},
                {"scale", context.value("scale", json::object())},
                {"time_scale", context.value("time_scale", json::object())},
                {"arm", {{"name", arm.name}, {"model", arm.model}, {"options", context["arm"]["options"]},
                         {"command", arm.command}, {"url", arm.url}}},
                {"order", std::string(to_string(o.order))},
                {"overrides", {{"duration", o.override_values.duration.value_or("")},
                               {"warmup", o.override_values.warmup.value_or("")},
                               {"trials", o.override_values.trials.value_or(0)},
                               {"pause", o.override_values.pause.value_or("")},
                               {"timeout", o.override_values.timeout.value_or("")}}},
                {"fit_to_limits", o.fit_to_limits},
                {"cpus", {format_cpu_list(o.server_cpus), format_cpu_list(o.load_cpus),
                          format_cpu_list(o.downstream_cpus)}},
                {"threads", o.threads},
                {"hlog", o.hlog},
                {"ready_path", o.ready_path},
                {"server_sample_ms", o.server_sample_period.count()}};
    if (kind == journal_kind::profile)
        out["profiling"] = {{"frequency", o.profiling.frequency}};
    return out.dump();
}

piece_facts facts_before_filing(const suite_options& o, const scenario& s, const arm_spec& arm, journal_kind kind)
{
    return {piece_settings(o, s, arm, kind), suite_files(o.out_dir, o.suite), {}};
}

const reuse_source* reusable(const suite_options& o, const journal_key& key, const std::string& settings,
                             bool planned_too)
{
    if (settings.empty() || !o.record)
        return nullptr;
    for (const auto& src : o.reuse_from) {
        if (auto j = journal::read(src.dir)) {
            std::string why;
            if (qualifying_piece(*j, key, settings, o.record->source_digest(), o.record->machine(), &why))
                return &src;
            if (!why.empty())
                continue;  // it ran there and cannot be copied (another build, another machine): it runs here
        }
        if (auto p = src.planned.find(key); planned_too && p != src.planned.end() && p->second == settings)
            return &src;
    }
    return nullptr;
}

result<reuse_outcome> reuse_piece(const suite_options& o, const journal_key& key, const std::string& settings)
{
    reuse_outcome out;
    if (!o.record || !o.record->appendable() || settings.empty())
        return out;
    for (const auto& src : o.reuse_from) {
        auto j = journal::read(src.dir);
        std::string why;
        const journal_piece* piece = j ? qualifying_piece(*j, key, settings, o.record->source_digest(),
                                                                 o.record->machine(), &why)
                                      : nullptr;
        if (!piece) {
            if (!why.empty() && out.refused.empty())
                out.refused = src.name + ": " + why;
            continue;
        }
        auto copy = plan_copy(o, src.dir, j->suite, *piece);
        if (!copy) {
            out.refused = src.name + ": " + copy.err().message;
            continue;
        }
        auto before = suite_files(o.out_dir, o.suite);
        for (const auto& a : *copy)
            if (auto w = append_bytes(a.file, a.bytes); !w)
                return w.err();
        reused_row note{key.scenario, key.arm, std::string(to_string(key.kind)), piece->run_id, src.name, src.study};
        if (auto w = append_bytes(reused_path(o.out_dir, o.suite), to_json(note) + "\n"); !w)
            return w.err();
        if (auto done = o.record->record_done(key, piece->run_id, piece->seconds, {settings, before, src.name}); !done)
            return done.err();
        out.from = src.name;
        out.refused.clear();
        return out;
    }
    return out;
}

}  // namespace execbench::load
