#pragma once

#include "execbench/load/runner.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace execbench::load::detail {

/// Reads the server's CPU, memory, threads and sockets at a fixed rate on its own thread, with timestamps, so the suite can
/// cut per-second figures for each trial afterwards.
class server_recorder {
public:
    struct reading {
        std::chrono::steady_clock::time_point at;
        double cpu_seconds = 0;
        double rss_mb = 0;
        std::uint32_t threads = 0;
        std::uint32_t sockets = 0;
    };

    server_recorder(pid_t pid, std::chrono::milliseconds period);
    ~server_recorder() { finish(); }
    server_recorder(const server_recorder&) = delete;
    server_recorder& operator=(const server_recorder&) = delete;

    /// Stops sampling and returns the readings, plus one taken now.
    std::vector<reading> finish();

private:
    pid_t pid_;
    std::chrono::milliseconds period_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::vector<reading> readings_;
    std::thread thread_;
};

struct trial_window {
    unsigned trial = 0;
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::time_point end;
};

/// The header of `<suite>-server-timeline.csv`.
extern const char* const server_timeline_header;

/// Per-second CSV lines of the server figures inside each trial window.
std::vector<std::string> server_timeline_lines(const run_result& r, const std::vector<trial_window>& windows,
                                               const std::vector<server_recorder::reading>& readings);

}  // namespace execbench::load::detail
