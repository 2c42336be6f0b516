#include "execbench/load/suite/journal.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/file.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace execbench::load {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// The journal's format version; a newer one is refused by name.
constexpr int journal_schema = 1;

constexpr std::string_view kind_names[] = {"run", "capacity", "profile"};

std::optional<journal_kind> parse_kind(std::string_view text)
{
    for (std::size_t i = 0; i < std::size(kind_names); ++i)
        if (kind_names[i] == text)
            return static_cast<journal_kind>(i);
    return std::nullopt;
}

/// fsync(2) on a file or folder; what cannot be opened is skipped (it was removed, which the journal will say).
result<void> sync_path(const fs::path& p, bool folder)
{
    int fd = ::open(p.c_str(), (folder ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0)
        return fail(p.string() + ": cannot be synced to disk: " + std::strerror(err));
    return {};
}

/// A journal line's parts: its event, its file sizes, and the rest for the event to read.
struct journal_line {
    json body;
    std::map<std::string, std::uintmax_t> files;
};

/// The journal's whole lines, in order; a torn last line (no line end, or not JSON: the process died writing it)
/// and anything after it are left out, and `kept_bytes` says where the whole lines end.
result<std::vector<journal_line>> read_lines(const fs::path& file, std::size_t& kept_bytes)
{
    auto text = read_file(file);
    if (!text)
        return text.err();
    std::vector<journal_line> out;
    kept_bytes = 0;
    std::size_t at = 0;
    while (at < text->size()) {
        auto end = text->find('\n', at);
        if (end == std::string::npos)
            break;
        auto body = json::parse(text->begin() + static_cast<std::ptrdiff_t>(at),
                                text->begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
        if (body.is_discarded() || !body.is_object() || !body.contains("event"))
            break;
        if (auto schema = body.value("schema", 0); schema > journal_schema)
            return fail(file.string() + ": journal schema " + std::to_string(schema) + " is newer than this " +
                        "bench-suite writes (" + std::to_string(journal_schema) + "); resume it with a newer build");
        journal_line line{std::move(body), {}};
        if (auto f = line.body.find("files"); f != line.body.end() && f->is_object())
            for (auto& [name, size] : f->items())
                line.files[name] = size.get<std::uintmax_t>();
        out.push_back(std::move(line));
        at = end + 1;
        kept_bytes = at;
    }
    return out;
}

std::string plural(std::size_t n, std::string_view what)
{
    return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
}

}  // namespace

std::string_view to_string(journal_kind k) noexcept
{
    return kind_names[static_cast<std::size_t>(k)];
}

fs::path journal::path_for(const fs::path& out_dir, std::string_view suite)
{
    return out_dir / (std::string(suite) + "-journal.jsonl");
}

std::map<std::string, std::uintmax_t> suite_files(const fs::path& out_dir, std::string_view suite)
{
    std::map<std::string, std::uintmax_t> out;
    std::error_code ec;
    const auto journal_name = journal::path_for(out_dir, suite).filename().string();
    for (const auto& e : fs::directory_iterator(out_dir, ec)) {
        auto name = e.path().filename().string();
        bool of_suite = name.starts_with(std::string(suite) + ".") || name.starts_with(std::string(suite) + "-");
        if (e.is_regular_file(ec) && of_suite && name != journal_name)
            out[name] = e.file_size(ec);
    }
    for (const char* sub : {"hlog", "profile"})
        for (const auto& e : fs::recursive_directory_iterator(out_dir / sub, ec))
            if (e.is_regular_file(ec))
                out[fs::relative(e.path(), out_dir, ec).string()] = e.file_size(ec);
    return out;
}

result<journal> journal::open(const fs::path& out_dir, std::string_view suite, const journal_options& options)
{
    journal j(out_dir, std::string(suite), options);
    const auto file = path_for(out_dir, suite);
    std::error_code ec;
    if (options.fresh && !options.read_only) {
        auto files = suite_files(out_dir, suite);
        for (const auto& [name, size] : files)
            fs::remove(out_dir / name, ec);
        bool had_journal = fs::remove(file, ec);
        if (!files.empty() || had_journal)
            j.notes_.push_back("--fresh: removed " + plural(files.size() + (had_journal ? 1 : 0), "file") +
                               " of suite " + j.suite_ + " from " + out_dir.string());
    }
    if (!fs::exists(file, ec)) {
        if (auto files = suite_files(out_dir, suite); !files.empty() && !options.rerun && !options.read_only)
            return fail(out_dir.string() + " holds results of suite " + j.suite_ + " (" + files.begin()->first +
                        ", ...) but no journal (" + file.filename().string() +
                        "): they were written before suites could resume, or by hand. --fresh replaces them, "
                        "--rerun adds this run's rows after theirs, --out writes elsewhere");
        return j;
    }
    std::size_t kept = 0;
    auto lines = read_lines(file, kept);
    if (!lines)
        return lines.err();
    if (lines->empty() || lines->front().body.value("event", "") != "start")
        return fail(file.string() + ": not a suite journal (its first line is no start); --fresh starts over");
    const auto& first = lines->front().body;
    if (auto s = first.find("seed"); s != first.end() && s->is_number_unsigned())
        j.first_seed_ = s->get<std::uint64_t>();
    // A piece is done once its line is whole; the files go back to the last whole line's sizes.
    for (const auto& line : *lines) {
        auto event = line.body.value("event", "");
        if (event == "done") {
            auto kind = parse_kind(line.body.value("kind", ""));
            if (!kind)
                return fail(file.string() + ": a done line names no kind of run");
            journal_key key{line.body.value("scenario", ""), line.body.value("arm", ""), *kind};
            j.seconds_[key] = line.body.value("seconds", 0.0);
            j.done_.insert(std::move(key));
        }
        j.finished_ = event == "end";
    }
    // The sources that built the folder's rows and the machines that ran them: every invocation's start line names
    // its own (a line written before machines were recorded names none, and is taken as this machine).
    std::set<std::string> digests, machines;
    for (const auto& line : *lines)
        if (line.body.value("event", "") == "start") {
            digests.insert(line.body.value("source_digest", ""));
            if (auto m = line.body.value("machine", ""); !m.empty())
                machines.insert(m);
        }
    const bool mixed = !digests.contains(options.source_digest);
    const bool moved = !machines.empty() && !machines.contains(options.machine);
    auto listed = [](const std::set<std::string>& items) {
        std::string out;
        for (const auto& i : items)
            out += (out.empty() ? "" : "; ") + i;
        return out;
    };
    const auto started_by = listed(digests);
    if (options.read_only) {
        j.resumed_ = true;
        if (options.fresh || options.rerun)
            j.done_.clear();
        return j;
    }
    if (mixed && !options.allow_mixed)
        return fail(out_dir.string() + " was started by sources " + started_by + "; this build's are " +
                    options.source_digest + " (" + options.git_revision +
                    "). Resuming would mix two builds' rows: build the sources it was started with, give "
                    "--allow-mixed to go on (the journal and each row's context record the change), or --fresh to "
                    "start over");
    if (moved && !options.allow_mixed)
        return fail(out_dir.string() + " was started on " + listed(machines) + "; this machine is " + options.machine +
                    ". A suite's verdicts compare its arms with each other, and resuming would compare rows from two "
                    "machines: resume it there, give --allow-mixed to go on (the journal and each row's context "
                    "record the change), or --fresh to start over");
    const auto& want = lines->back().files;
    auto have = suite_files(out_dir, suite);
    for (const auto& [name, size] : want) {
        auto it = have.find(name);
        auto now = it == have.end() ? 0 : it->second;
        if (now < size)
            return fail(out_dir.string() + ": " + name + " holds " + std::to_string(now) + " bytes, but the journal " +
                        "says " + std::to_string(size) +
                        " were written: the folder changed after the run, and resuming would lose rows. --fresh "
                        "starts over");
    }
    std::size_t cut = 0, removed = 0;
    for (const auto& [name, size] : have) {
        auto it = want.find(name);
        if (it == want.end()) {
            fs::remove(out_dir / name, ec);
            ++removed;
        } else if (size > it->second) {
            fs::resize_file(out_dir / name, it->second, ec);
            if (ec)
                return fail((out_dir / name).string() + ": cannot be cut back to its last whole run: " + ec.message());
            ++cut;
        }
    }
    if (auto size = fs::file_size(file, ec); !ec && size > kept)
        fs::resize_file(file, kept, ec);
    j.resumed_ = true;
    if (cut + removed > 0)
        j.notes_.push_back("the run in flight when the last invocation ended left rows behind: " +
                           plural(cut, "file") + " cut back, " + plural(removed, "file") + " removed");
    if (mixed)
        j.notes_.push_back("--allow-mixed: rows from sources " + started_by + " and " + options.source_digest +
                           " share this folder (the journal records the change)");
    if (moved)
        j.notes_.push_back("--allow-mixed: rows from " + listed(machines) + " and " + options.machine +
                           " share this folder (the journal records the change)");
    if (options.rerun)
        j.done_.clear();
    return j;
}

result<journal_contents> journal::read(const fs::path& out_dir)
{
    const std::string tail = "-journal.jsonl";
    std::vector<fs::path> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out_dir, ec))
        if (auto name = e.path().filename().string(); name.size() > tail.size() && name.ends_with(tail))
            found.push_back(e.path());
    if (found.size() != 1)
        return fail(out_dir.string() + (found.empty() ? " holds no suite journal (*-journal.jsonl)"
                                                      : " holds more than one suite journal"));
    journal_contents out;
    auto name = found.front().filename().string();
    out.suite = name.substr(0, name.size() - tail.size());
    std::size_t kept = 0;
    auto lines = read_lines(found.front(), kept);
    if (!lines)
        return lines.err();
    for (const auto& line : *lines) {
        auto event = line.body.value("event", "");
        if (event == "start") {
            out.source_digests.insert(line.body.value("source_digest", ""));
            out.machines.insert(line.body.value("machine", ""));
        }
        if (event != "done")
            continue;
        auto kind = parse_kind(line.body.value("kind", ""));
        if (!kind)
            return fail(found.front().string() + ": a done line names no kind of run");
        journal_piece piece;
        piece.key = {line.body.value("scenario", ""), line.body.value("arm", ""), *kind};
        piece.run_id = line.body.value("run_id", "");
        piece.seconds = line.body.value("seconds", 0.0);
        if (auto s = line.body.find("settings"); s != line.body.end() && s->is_object())
            piece.facts.settings = s->dump();
        if (auto b = line.body.find("files_before"); b != line.body.end() && b->is_object()) {
            piece.facts.from.emplace();
            for (auto& [file, size] : b->items())
                (*piece.facts.from)[file] = size.get<std::uintmax_t>();
        }
        piece.facts.reused_from = line.body.value("reused_from", "");
        piece.to = line.files;
        out.pieces.push_back(std::move(piece));
    }
    return out;
}

result<void> journal::begin(std::uint64_t seed)
{
    const auto& options = options_;
    json fields = {{"source_digest", options.source_digest},
                   {"git_revision", options.git_revision},
                   {"machine", options.machine},
                   {"build_type", std::string(build_type())},
                   {"compiler", std::string(compiler())},
                   {"command", options.command},
                   {"seed", seed}};
    return append("start", fields.dump());
}

result<void> journal::record_done(const journal_key& key, std::string_view run_id, double seconds,
                                  const piece_facts& facts)
{
    json fields = {{"scenario", key.scenario},
                   {"arm", key.arm},
                   {"kind", std::string(to_string(key.kind))},
                   {"run_id", std::string(run_id)},
                   {"seconds", seconds}};
    if (!facts.settings.empty())
        fields["settings"] = json::parse(facts.settings, nullptr, false);
    if (facts.from)
        fields["files_before"] = *facts.from;
    if (!facts.reused_from.empty())
        fields["reused_from"] = facts.reused_from;
    if (auto ok = append("done", fields.dump()); !ok)
        return ok;
    done_.insert(key);
    seconds_[key] = seconds;
    return {};
}

result<void> journal::record_end()
{
    finished_ = true;
    return append("end", "{}");
}

result<void> journal::append(std::string_view event, std::string_view fields)
{
    // The rows first, then the line that says they are whole: a power loss between the two leaves rows the next
    // start cuts back, never a line naming rows that are not on disk.
    auto files = suite_files(out_dir_, suite_);
    for (const auto& [name, size] : files)
        if (auto synced = sync_path(out_dir_ / name, false); !synced)
            return synced;
    for (const char* folder : {"hlog", "profile"})
        (void)sync_path(out_dir_ / folder, true);
    (void)sync_path(out_dir_, true);
    auto line = json::parse(fields);
    line["schema"] = journal_schema;
    line["event"] = std::string(event);
    line["at"] = utc_timestamp();
    line["files"] = files;
    auto text = line.dump() + "\n";
    const auto file = path_for(out_dir_, suite_);
    int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(file.string() + ": cannot be written: " + std::strerror(errno));
    auto n = ::write(fd, text.data(), text.size());
    int err = errno;
    bool synced = n == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (!synced)
        return fail(file.string() + ": cannot be written: " + std::strerror(n < 0 ? err : EIO));
    return sync_path(out_dir_, true);
}

}  // namespace execbench::load
