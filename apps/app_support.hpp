// What the four apps share: exit codes, the Ctrl-C flag, and one way of reporting command-line mistakes.
#pragma once

#include "execbench/core/text.hpp"
#include "execbench/load/scenario/duration.hpp"
#include "execbench/load/scenario/scenario_catalogue.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace execbench::apps {

/// Exit codes, the same in every app (README: "Exit codes").
inline constexpr int exit_ok = 0;
inline constexpr int exit_run_errors = 1;  ///< requests failed, a run failed, results stale
inline constexpr int exit_usage = 2;       ///< bad command line or input files
inline constexpr int exit_slo = 3;         ///< an --slo gate was broken
inline constexpr int exit_behind = 4;      ///< bench-load: an open loop fell behind its rate (requests unsent)

/// Another tool's flag and what to say about it: {"-q", "is hey's rate per worker; ... --rate N"}.
struct foreign_flag {
    std::string_view flag;
    std::string_view instead;
};

/// Set by the first Ctrl-C or SIGTERM; the run ends early, keeps what it measured and stops the servers it started.
inline std::atomic<bool> stop_requested{false};

/// A folder this run made, removed by a second stop signal when nothing was written to it yet; empty: none.
inline char folder_made_for_run[4096] = {};

/// What must end with the process when a second signal ends it at once (bench-suite: the servers it started); it
/// must be async-signal-safe. Null: nothing.
inline void (*end_with_process)() noexcept = nullptr;

/// The second Ctrl-C or SIGTERM ends the process at once, with the shell's status for a signal (128 + its number),
/// takes what it started with it (`end_with_process`) and leaves no empty results folder behind (rmdir removes only
/// an empty one; every call here is async-signal-safe).
inline void on_second_stop_signal(int sig)
{
    if (end_with_process != nullptr)
        end_with_process();
    if (folder_made_for_run[0] != '\0')
        ::rmdir(folder_made_for_run);
    ::_exit(128 + sig);
}

inline void on_stop_signal(int sig)
{
    stop_requested.store(true);
    std::signal(sig, on_second_stop_signal);
}

/// Routes the first Ctrl-C and the first SIGTERM (`timeout`, `kill`, a Kubernetes pod being deleted) to
/// `stop_requested`: dying at once would leave bench-suite's bench-server running, an orphan holding the CPU.
/// The run then ends early with what it measured and exits 1; a second signal exits at once, 130 for Ctrl-C.
inline void stop_on_sigint()
{
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
}

/// Removes the folder `remove_if_left_empty` named if the run, ended by itself or by a first stop signal, wrote
/// nothing into it.
inline void remove_folder_left_empty()
{
    if (folder_made_for_run[0] != '\0')
        ::rmdir(folder_made_for_run);
}

/// Names `folder` for the second stop signal (and `remove_folder_left_empty`) to remove if the run leaves it empty; only a folder that does not exist
/// yet, so one the user made is never removed.
inline void remove_if_left_empty(const std::filesystem::path& folder)
{
    std::error_code ec;
    const auto text = std::filesystem::absolute(folder, ec).string();
    if (ec || std::filesystem::exists(folder, ec) || text.size() >= sizeof folder_made_for_run)
        return;
    std::memcpy(folder_made_for_run, text.c_str(), text.size() + 1);
}

/// "<program>: <what>" and the --help hint on stderr; returns exit_usage.
inline int usage_error(std::string_view program, std::string_view what)
{
    std::fprintf(stderr, "%.*s: %.*s\nRun with --help for the options.\n", static_cast<int>(program.size()),
                 program.data(), static_cast<int>(what.size()), what.data());
    return exit_usage;
}

/// CLI11's "Could not convert: --trials = -1" reworded as "--trials: -1 is not a whole number".
inline std::string reworded(const CLI::App& app, const std::string& message)
{
    constexpr std::string_view convert = "Could not convert: ";
    if (message.compare(0, convert.size(), convert) != 0)
        return message;
    auto rest = message.substr(convert.size());
    auto eq = rest.find(" = ");
    if (eq == std::string::npos)
        return message;
    auto flag = rest.substr(0, eq);
    auto value = rest.substr(eq + 3);
    std::string kind = "a valid value";
    if (const auto* opt = app.get_option_no_throw(flag)) {
        auto type = opt->get_type_name();
        if (type == "UINT")
            kind = "a whole number (0 or more)";
        else if (type == "INT")
            kind = "an integer";
        else if (type == "FLOAT")
            kind = "a number";
    }
    return flag + ": " + value + " is not " + kind;
}

/// What to say about one argument CLI11 did not expect: another tool's flag with its execbench spelling, a
/// misspelt long option with the nearest one ("--modle: unknown option; did you mean --model?"), or a stray word.
inline std::string unexpected_argument(const CLI::App& app, const std::string& arg,
                                       const std::vector<foreign_flag>& foreign)
{
    const bool is_long = arg.rfind("--", 0) == 0;
    const std::string name = is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    for (const auto& f : foreign)
        if (f.flag == name)
            return name + " " + std::string(f.instead);
    if (arg.empty() || arg.front() != '-')
        return "unexpected argument '" + arg + "'";
    std::vector<std::string> longs;
    std::optional<std::string> guess;
    if (is_long) {
        for (const auto* opt : app.get_options())
            for (const auto& l : opt->get_lnames())
                longs.push_back("--" + l);
        guess = load::closest_match(name, longs);
        for (const auto& l : longs)
            if (!guess && l.rfind(name, 0) == 0)
                guess = l;  // the start of an option: its first
    }
    return name + ": unknown option" + (guess ? "; did you mean " + *guess + "?" : std::string{});
}

/// Parses the command line. Returns the exit code when the app should stop (help, version, or a mistake reported
/// as "<program>: <what is wrong>" + "Run with --help for the options."), nothing when it should go on.
/// Arguments it did not expect are named in the order given, each with a hint (`unexpected_argument`).
inline std::optional<int> parse_command_line(CLI::App& app, std::string_view program, int argc, char** argv,
                                             const std::vector<foreign_flag>& foreign = {})
{
    try {
        app.parse(argc, argv);
    } catch (const CLI::ExtrasError& e) {
        auto left = app.remaining();
        std::string what, strays;
        bool after_flag = false;
        for (int i = 1; i < argc; ++i) {
            auto it = std::find(left.begin(), left.end(), std::string(argv[i]));
            if (it == left.end()) {
                after_flag = false;
                continue;
            }
            left.erase(it);
            const bool flag = argv[i][0] == '-';
            if (!flag && after_flag)
                continue;  // the value of the unknown flag before it
            auto& into = flag ? what : strays;
            into += (into.empty() ? "" : "; ") + unexpected_argument(app, argv[i], foreign);
            after_flag = flag;
        }
        // After an unknown flag, a word left over is mostly the URL displaced by that flag's value (`-q 10 URL`
        // gives 10 the URL's place): the flags alone say what to fix.
        if (what.empty())
            what = strays;
        return usage_error(program, what.empty() ? std::string(e.what()) : what);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(program, reworded(app, e.what()));
    }
    return std::nullopt;
}

/// A validator for an integer in lo..hi: "--port: 99999 is not a port (0..65535)".
inline CLI::Validator integer_in(long long lo, long long hi, const std::string& what)
{
    return CLI::Validator(
        [lo, hi, what](std::string& text) -> std::string {
            long long v = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
                return text + " is not " + what + " (" + std::to_string(lo) + ".." + std::to_string(hi) + ")";
            return {};
        },
        std::to_string(lo) + ".." + std::to_string(hi));
}

/// "0.001..3600"
inline std::string range_text(double lo, double hi)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g..%g", lo, hi);
    return buf;
}

/// A validator for a number in lo..hi: "--shutdown-timeout: -1 is not a number of seconds (0..3600)".
inline CLI::Validator number_in(double lo, double hi, const std::string& what)
{
    return CLI::Validator(
        [lo, hi, what](std::string& text) -> std::string {
            char* end = nullptr;
            double v = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !(v >= lo && v <= hi))
                return text + " is not " + what + " (" + range_text(lo, hi) + ")";
            return {};
        },
        range_text(lo, hi));
}

/// A validator (use with `transform`) for a time of lo..hi seconds, written as a number of seconds ("1.5") or with a
/// unit as scenarios write durations ("500ms", "2m"), then handed to the option as seconds:
/// "--idle-timeout: 5x is not a time of 0.001..3600 seconds (e.g. 1.5, 500ms, 3s, 2m)".
inline CLI::Validator seconds_in(double lo, double hi)
{
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            auto d = load::parse_duration(text);
            const double seconds = d ? std::chrono::duration<double>(*d).count() : -1;
            if (!d || !(seconds >= lo && seconds <= hi))
                return text + " is not a time of " + range_text(lo, hi) + " seconds (e.g. 1.5, 500ms, 3s, 2m)";
            text.clear();
            append_number(seconds, text);
            return {};
        },
        range_text(lo, hi) + " s");
}

}  // namespace execbench::apps
