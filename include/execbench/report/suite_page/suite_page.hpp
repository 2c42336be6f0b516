#pragma once

#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"
#include "execbench/report/word/report_paths.hpp"
#include "execbench/report/word/words.hpp"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::report {

/// Notes per arm as bullets, arms with the same note on one line ("pool, fiber, loop: not run: ..."), in the order
/// the notes first appear.
bullets grouped_notes(const std::vector<std::pair<std::string, std::string>>& arm_notes);

/// What the recorded contexts of a set of runs say about where they ran, each field "; "-joined over the runs.
struct context_summary {
    std::string first, last;  ///< earliest and latest run start
    std::string machine, kernel, build, revision;
    std::size_t revisions = 0;  ///< how many revisions `revision` joins
    std::string generator;      ///< the load generator: threads, and whether it ran on the server's machine
    std::string sharing;        ///< what shared the machine (and the load average / steal when recorded)
    std::string pinning;        ///< CPU affinity per process, "none", or "not recorded"
    std::set<unsigned> cores;
    bool separate_downstream = false;  ///< some run had its own downstream server
};

/// Summarizes the contexts of runs; fields they did not record (older results) read as unknown, never as a guess.
context_summary summarize_contexts(const std::vector<load::run_context>& contexts);

/// The page of one suite, which its markdown and HTML files render.
page suite_page(const suite_data& suite, const report_paths& paths);

/// The markdown page of one suite.
std::string suite_markdown(const suite_data& suite, const report_paths& paths);

}  // namespace execbench::report
