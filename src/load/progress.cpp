#include "execbench/load/progress.hpp"

#include "execbench/core/text.hpp"

#include <algorithm>
#include <string>

#include <unistd.h>

namespace execbench::load {

progress_printer::progress_printer(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) == 1) {}

void progress_printer::clear()
{
    if (tty_ && bar_shown_) {
        std::fputs("\r\033[K", out_);
        std::fflush(out_);
        bar_shown_ = false;
    }
}

void progress_printer::operator()(const progress_event& ev)
{
    using phase = progress_event::phase;
    if (tty_) {
        if (ev.what == phase::done) {
            if (bar_shown_)
                std::fputs("\r\033[K", out_);
            bar_shown_ = false;
            std::fflush(out_);
            return;
        }
        const char* name = ev.what == phase::warmup ? "warm-up" : ev.what == phase::pause ? "pause" : "trial";
        // A 20-cell bar of the run's time so far against its estimated total.
        double total = std::chrono::duration<double>(ev.elapsed + ev.remaining).count();
        double frac = total > 0 ? std::chrono::duration<double>(ev.elapsed).count() / total : 0;
        int cells = static_cast<int>(frac * 20);
        std::string bar(static_cast<std::size_t>(std::clamp(cells, 0, 20)), '#');
        bar.resize(20, '.');
        std::fprintf(out_, "\r\033[K%s [%s] %s %u/%u elapsed %s left ~%s %.0f req/s errors %llu", ev.scenario.c_str(),
                     bar.c_str(), name, ev.trial, ev.trials, clock_text(ev.elapsed).c_str(),
                     clock_text(ev.remaining).c_str(), ev.live_rps, static_cast<unsigned long long>(ev.errors));
        bar_shown_ = true;
        std::fflush(out_);
        return;
    }
    if (ev.what == phase::trial_done) {
        std::fprintf(out_, "%s %s: trial %u/%u done, ok=%llu errors=%llu, elapsed %s\n", ev.model.c_str(),
                     ev.scenario.c_str(), ev.trial, ev.trials, static_cast<unsigned long long>(ev.ok),
                     static_cast<unsigned long long>(ev.errors), clock_text(ev.elapsed).c_str());
        std::fflush(out_);
    }
}

}  // namespace execbench::load
