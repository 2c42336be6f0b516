#pragma once

#include "execbench/core/result.hpp"
#include "execbench/load/overrides.hpp"
#include "execbench/load/runner.hpp"
#include "execbench/load/scenario.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace execbench::load {

/// A bench-server child process: started on port 0, its port read from the first stdout line, stopped with SIGTERM
/// (SIGKILL after a timeout). Its stdout and stderr go to files in a temporary folder that is removed with it.
class server_process {
public:
    server_process() = default;
    ~server_process();
    server_process(const server_process&) = delete;
    server_process& operator=(const server_process&) = delete;

    /// Starts `binary` with `args` (plus `--port 0`), reads `port=` from its first stdout line and waits until
    /// /health answers 200, all within `deadline`. The error says what failed and quotes the server's stderr.
    result<bool> start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                       std::chrono::steady_clock::time_point deadline);
    /// SIGTERM, then SIGKILL when it has not exited within `grace`; then waits until nothing listens on the port
    /// any more (bounded by `grace` too). Returns an error when it had to be killed or the port stayed busy.
    result<bool> stop(std::chrono::milliseconds grace);

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    [[nodiscard]] bool running() const noexcept { return pid_ > 0; }
    /// "http://127.0.0.1:<port>"
    [[nodiscard]] std::string url() const;
    /// The first stdout line ("bench-server model=... port=... pid=...").
    [[nodiscard]] const std::string& start_line() const noexcept { return start_line_; }
    /// The last lines of its stderr (for error messages).
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 600) const;

private:
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    std::string start_line_;
    std::filesystem::path dir_;
};

/// True when nothing listens on 127.0.0.1:`port` and the port can be bound again.
bool port_is_free(std::uint16_t port);

/// Open files a scenario needs at its peak: in the load generator (sockets plus spare), in the server under
/// test (client connections plus the sockets of its calls downstream, counted from `delayCallDepth`) and in a
/// separate downstream server (0 when there is none).
struct descriptor_needs {
    std::uint64_t load_generator = 0;
    std::uint64_t server = 0;
    std::uint64_t downstream = 0;
};
descriptor_needs descriptors_needed(const scenario& s);

/// The deepest `delayCallDepth` in a scenario's request mix (foreground and background).
unsigned max_call_depth(const scenario& s);

/// Command-line arguments for bench-server from a scenario's `server.options` ("true" → a bare flag, "false" →
/// left out, anything else → `--name value`).
std::vector<std::string> server_option_args(const server_spec& spec);

/// How one scenario × model ended.
enum class run_status { ok, errors, failed, not_run };
std::string_view to_string(run_status s) noexcept;
std::optional<run_status> parse_run_status(std::string_view text) noexcept;

/// One line of the suite's ledger (`<suite>-runs.csv`).
struct suite_entry {
    std::string suite;
    std::string scenario;
    std::string model;
    run_status status = run_status::failed;
    std::string run_id;       ///< joins the bench-load results files; empty when nothing ran
    std::string started_at;   ///< ISO 8601 UTC
    double seconds = 0;       ///< wall time of this entry, server start and stop included
    std::string message;      ///< why it failed or was not run; request error counts for `errors`
};

/// Progress over a whole suite.
struct suite_progress {
    std::size_t index = 0;  ///< 1-based run (scenario × model)
    std::size_t count = 0;
    std::string scenario;
    std::string model;
    duration elapsed{};     ///< since the suite started
    duration remaining{};   ///< estimate for the runs left, this one included
};

/// What a suite runs and where it writes.
struct suite_options {
    std::string suite;                             ///< results go to `out_dir/<suite>.csv` and its companions
    std::vector<std::string> scenarios;            ///< names, in run order
    std::vector<std::string> models{"pool", "fiber", "loop"};
    std::filesystem::path scenarios_dir;
    std::filesystem::path server_binary;           ///< bench-server
    std::filesystem::path out_dir;                 ///< e.g. results/<suite>
    overrides override_values;                     ///< --duration, --warmup, --trials, --scale ...
    bool fit_to_limits = false;                    ///< scale a scenario beyond the open-file limits to fit them
    unsigned threads = 1;                          ///< load-generator threads
    std::chrono::milliseconds start_timeout{20'000};
    std::chrono::milliseconds stop_timeout{15'000};
    std::chrono::milliseconds server_sample_period{250};
    const std::atomic<bool>* stop = nullptr;       ///< set (SIGINT) to end after the current run
    /// Before each run.
    std::function<void(const suite_progress&)> on_run_start;
    /// Forwarded from load::run while a run goes on.
    std::function<void(const progress_event&)> on_progress;
    /// After each run, with its ledger line and (when it ran) its result.
    std::function<void(const suite_entry&, const run_result*)> on_run_done;
};

/// The scenarios of `dir` that list `suite` in their suites, sorted by name.
std::vector<std::string> scenarios_in_suite(const std::filesystem::path& dir, std::string_view suite);

/// Runs every scenario under every model, each on a fresh server (and a fresh downstream server when the scenario
/// asks for a separate one). A run that cannot start or fails is recorded in the ledger and the suite goes on; a
/// scenario beyond the open-file limit is recorded as not run, or run scaled to fit with `fit_to_limits`. Fails only
/// when nothing can be written or a scenario does not parse.
result<std::vector<suite_entry>> run_suite(const suite_options& options);

/// The files a suite writes beside the bench-load results: the ledger and the server's per-second samples.
std::filesystem::path ledger_path(const std::filesystem::path& out_dir, std::string_view suite);
std::filesystem::path server_timeline_path(const std::filesystem::path& out_dir, std::string_view suite);

/// Appends one line to a ledger (creating it with its header).
result<bool> append_ledger(const std::filesystem::path& file, const suite_entry& e);
/// Reads a ledger back; the error names the line.
result<std::vector<suite_entry>> read_ledger(const std::filesystem::path& file);

}  // namespace execbench::load
