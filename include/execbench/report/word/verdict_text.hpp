#pragma once
// The winners' verdicts in words: a pair, a cell, the shares and the page's "## Winners" section (judge/winners.hpp
// judges).

#include "execbench/report/judge/winners.hpp"
#include "execbench/report/page/page.hpp"
#include "execbench/report/read/suite_reader.hpp"

#include <string>
#include <string_view>

namespace execbench::report {

/// How a cell reads in a table: the winner, the leaders joined by " = " ("fiber = loop"), or why there is none.
std::string cell_text(const cell_verdict& c);

/// One pair in the words of hyperfine: "loop: 2.93× (2.88–2.99) lower latency p99 than pool", or a tie.
std::string describe(const pair_verdict& p, const metric_rule& rule);

/// The pair that sums up a cell: for a winner, the arm it leads by least (the runner-up); for a tie, an undecided
/// pair of the arm with the best median. Null when the cell has no pairs (no verdict).
const pair_verdict* deciding_pair(const cell_verdict& c, const metric_rule& rule);

/// Whether a verdict line names the arms its failures ranked down: in the line ("; failures over 0.1 % of
/// requests: pool 974 errors in 1 of 3 trials"), or not, where the text around it says them once.
enum class failures_said { in_line, elsewhere };

/// A cell's verdict in one short line with its interval: "loop: 1.04× (1.02–1.05) lower than fiber",
/// "tie: fiber / loop 1.008× (0.982–1.029)", or why there is none ("too few trials").
std::string verdict_line(const cell_verdict& c, const metric_rule& rule,
                         failures_said failures = failures_said::in_line);

/// The "Winners" section of a suite page: the rules, the shares, per scenario counts, the verdict per metric and
/// every pair's ratio with its interval.
page winners_section(const suite_data& suite, const winners_table& t,
                     std::string_view methodology_link = "../methodology.md");

}  // namespace execbench::report
