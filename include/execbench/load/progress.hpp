#pragma once

#include "execbench/load/runner.hpp"

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

}  // namespace execbench::load
