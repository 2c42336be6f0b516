#pragma once

#include "execbench/load/engine/target.hpp"
#include "execbench/load/run/runner.hpp"

#include <cstdio>

namespace execbench::load {

/// Shows a run's progress on a stream (stderr): a redrawn bar when the stream is a terminal (phase, trial i/N,
/// elapsed and remaining time, live req/s, errors), one line per finished trial otherwise. Pass it as
/// run_options::on_progress; leave it out for --quiet.
class progress_printer {
public:
    explicit progress_printer(std::FILE* out);
    void operator()(const progress_event& ev);
    /// Erases a bar being shown, so a line can be printed to the same terminal; it is redrawn on the next event.
    void clear();

private:
    std::FILE* out_;
    bool tty_;
    bool bar_shown_ = false;
};

/// The start banner (stderr, before the warm-up): shape and its numbers, warm-up, trials, threads, the target, the
/// server's model and pid, and the CPUs this process may use. A `load` text replaces the shape, warm-up and trials
/// when something else sets them (a capacity search's steps).
std::string format_banner(const scenario& s, const run_options& options, const target& t, const observed_server& server,
                          std::string_view load = {});

/// The CPUs this process may run on (sched_getaffinity), listed as taskset does: "0-3", "0,2".
std::string affinity_list();

}  // namespace execbench::load
