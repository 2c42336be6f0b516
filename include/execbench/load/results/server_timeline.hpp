#pragma once

#include "execbench/load/record/run_record.hpp"
#include "execbench/stats/sampler.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace execbench::load::detail {

/// When one trial ran, on the steady clock.
struct trial_window {
    unsigned trial = 0;
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::time_point end;
};

/// The header of `<suite>-server-timeline.csv`.
extern const char* const server_timeline_header;

/// One server's readings (stats::periodic_sampler) and the trials it served.
struct sampled_server {
    std::vector<trial_window> windows;
    std::vector<stats::timed_sample> readings;
};

/// Per-second CSV lines of the server figures inside each trial window, each from its own server's readings taken
/// every `period`.
std::vector<std::string> server_timeline_lines(const run_record& r, const std::vector<sampled_server>& servers,
                                               std::chrono::milliseconds period);

}  // namespace execbench::load::detail
