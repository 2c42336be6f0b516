#pragma once
// A suite's results folder written by hand, as bench-suite writes it, for the report's tests.

#include <filesystem>
#include <string>
#include <vector>

namespace execbench::test_support {

/// Writes `text` to `p`, creating its folders.
void write_file(const std::filesystem::path& p, const std::string& text);

/// The whole of a file, byte for byte ("" when it cannot be read).
std::string read_back(const std::filesystem::path& p);

/// A suite folder `root/name` as bench-suite writes it: pool ok, fiber with request errors, loop not run.
std::filesystem::path fake_suite(const std::filesystem::path& root, const std::string& name = "s");

/// One finished run of a hand-written suite.
struct fake_run {
    std::string scenario;
    std::string model;
    std::string run_id;
};

/// A suite folder `root/name` whose ledger holds `runs`, all ok, beside the summary `summary_csv` and the context
/// lines `context_jsonl` given whole.
std::filesystem::path written_suite(const std::filesystem::path& root, const std::string& name,
                                    const std::vector<fake_run>& runs, const std::string& summary_csv,
                                    const std::string& context_jsonl);

/// A context line of run `run_id` as bench-suite writes it (its machine, execbench and load settings empty): the
/// scenario object names `scenario` and holds `scenario_fields` after it (`,"tls":true`), and `fields` follow it
/// (`,"scale":{...}`).
std::string context_line(const std::string& run_id, const std::string& scenario,
                         const std::string& scenario_fields = "", const std::string& fields = "");

/// True when python3 can import matplotlib (the chart script needs it).
bool have_matplotlib();

}  // namespace execbench::test_support
