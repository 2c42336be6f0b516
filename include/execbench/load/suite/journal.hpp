#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// What a journal line records as finished: one arm of one scenario, as a fixed-rate run, a capacity search or a
/// profiled trial.
enum class journal_kind { run, capacity, profile };
std::string_view to_string(journal_kind k) noexcept;

/// One finished piece of a suite, as a journal names it.
struct journal_key {
    std::string scenario;
    std::string arm;
    journal_kind kind = journal_kind::run;
    auto operator<=>(const journal_key&) const = default;
};

/// What a done line records beside its key, so another suite can take the piece's rows instead of running it
/// (load/suite/reuse.hpp).
struct piece_facts {
    std::string settings;  ///< what the piece ran under (reuse.hpp's piece_settings), as JSON; "" when not known
    /// The suite's file sizes just before the piece was filed: with the done line's, each file's byte range.
    std::optional<std::map<std::string, std::uintmax_t>> from;
    std::string reused_from;  ///< the folder whose rows were copied; "" when the piece ran here
};

/// A finished piece as its done line records it, read back for reuse.
struct journal_piece {
    journal_key key;
    std::string run_id;
    double seconds = 0;
    piece_facts facts;
    std::map<std::string, std::uintmax_t> to;  ///< the suite's file sizes once it was filed
};

/// A journal read without touching its folder: the suite it belongs to, the sources of every invocation and each
/// done line in order (a piece run again appears again).
struct journal_contents {
    std::string suite;
    std::set<std::string> source_digests;
    std::set<std::string> machines;  ///< machine_identity() of every invocation's machine; "" where not recorded
    std::vector<journal_piece> pieces;
};

/// What a suite's folder is opened for.
struct journal_options {
    /// Start the folder over: the suite's files and its journal are removed first.
    bool fresh = false;
    /// Run the selected scenarios × arms again even where the journal says they finished (their new rows follow the
    /// old ones; the report shows the latest), and accept a folder of results written before journals existed.
    bool rerun = false;
    /// Resume a folder started by other sources (a different source digest) or on another machine (a different
    /// machine_identity()); the journal records the change.
    bool allow_mixed = false;
    /// Only read the journal (bench-suite --plan): nothing is removed, cut or refused; with `fresh` or `rerun`,
    /// nothing counts as finished, but the measured times are kept.
    bool read_only = false;
    std::string source_digest;  ///< of this build
    std::string machine;        ///< machine_identity() of this machine
    std::string git_revision;   ///< of this build, for the messages
    std::string command;        ///< the command line, as typed, for the record
};

/// The journal of a suite's results folder (`<suite>-journal.jsonl`): a line when the suite starts, one when each
/// scenario × arm is filed whole, one when the suite ends. Each line holds the size of every file of the suite at
/// that moment (after they were synced to disk), so a run cut off at any point (Ctrl-C, kill -9, power loss) is
/// undone on the next start: files are cut back to the last line's sizes, files made since are removed, and the
/// finished pieces are skipped. A torn last line counts as not written.
class journal {
public:
    /// Opens the journal of suite `suite` in `out_dir` and brings the folder back to its last finished piece. Fails
    /// (naming the way out) when the folder holds the suite's results without a journal, when a file is shorter than
    /// the journal says, or when the folder was started by other sources or on another machine and `allow_mixed` is
    /// not given.
    static result<journal> open(const std::filesystem::path& out_dir, std::string_view suite,
                                const journal_options& options);

    /// The suite ended in this folder before, and nothing was asked to run again.
    [[nodiscard]] bool finished() const noexcept { return finished_; }
    /// An earlier invocation started this folder (its pieces are skipped).
    [[nodiscard]] bool resumed() const noexcept { return resumed_; }
    /// The journal says `key` finished (and it is not to be run again).
    [[nodiscard]] bool done(const journal_key& key) const { return done_.contains(key); }
    /// How many pieces the journal holds as finished.
    [[nodiscard]] std::size_t done_count() const noexcept { return done_.size(); }
    /// The wall time `key` took when it was filed, in seconds (its latest line), whether or not it is to run again.
    [[nodiscard]] std::optional<double> seconds_of(const journal_key& key) const
    {
        auto it = seconds_.find(key);
        return it == seconds_.end() ? std::nullopt : std::optional<double>(it->second);
    }
    /// The seed the folder's first invocation used: resuming with it keeps the interleaved order.
    [[nodiscard]] std::optional<std::uint64_t> first_seed() const noexcept { return first_seed_; }
    /// What opening did to the folder, one line each ("cut default.csv back by 312 bytes ..."), for the user.
    [[nodiscard]] const std::vector<std::string>& notes() const noexcept { return notes_; }

    /// Records that an invocation starts (or resumes) here: its sources, build, command and the interleaved order's
    /// `seed`, and the files as they are once the folder is ready to be appended to.
    result<void> begin(std::uint64_t seed);
    /// Records that `key` was filed whole: the suite's files are synced, then their sizes journalled, with `facts`.
    result<void> record_done(const journal_key& key, std::string_view run_id, double seconds,
                             const piece_facts& facts = {});
    /// Records that the suite ran to its end.
    result<void> record_end();

    /// The sources of this build, as the journal records them.
    [[nodiscard]] const std::string& source_digest() const noexcept { return options_.source_digest; }
    /// This machine, as the journal records it.
    [[nodiscard]] const std::string& machine() const noexcept { return options_.machine; }
    /// Opened to be appended to (not read-only, not --rerun): pieces may be copied in from other folders.
    [[nodiscard]] bool appendable() const noexcept { return !options_.read_only && !options_.rerun; }

    /// The journal file of suite `suite` in `out_dir`.
    static std::filesystem::path path_for(const std::filesystem::path& out_dir, std::string_view suite);
    /// Reads the one suite journal in `out_dir` (`<suite>-journal.jsonl`) as it is, changing nothing; fails when
    /// there is none, or more than one.
    static result<journal_contents> read(const std::filesystem::path& out_dir);

private:
    journal(std::filesystem::path out_dir, std::string suite, journal_options options)
        : out_dir_(std::move(out_dir)), suite_(std::move(suite)), options_(std::move(options))
    {
    }
    /// Appends one JSON line with the suite's file sizes, synced.
    result<void> append(std::string_view event, std::string_view fields);

    std::filesystem::path out_dir_;
    std::string suite_;
    journal_options options_;
    std::set<journal_key> done_;
    std::map<journal_key, double> seconds_;
    std::optional<std::uint64_t> first_seed_;
    std::vector<std::string> notes_;
    bool finished_ = false;
    bool resumed_ = false;
};

/// The files of suite `suite` in `out_dir` and their sizes, by path relative to `out_dir`: `<suite>.csv` and its
/// companions (`<suite>-*`), and everything under `hlog/` and `profile/`; the journal itself is not one of them.
std::map<std::string, std::uintmax_t> suite_files(const std::filesystem::path& out_dir, std::string_view suite);

}  // namespace execbench::load
