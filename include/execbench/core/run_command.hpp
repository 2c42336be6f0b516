#pragma once

#include "execbench/core/result.hpp"

#include <string>
#include <vector>

namespace execbench {

/// Runs `argv[0]` (looked up on the PATH) with `argv` and waits for it, without a shell: the child inherits
/// stdin/stdout/stderr. The value is the exit status; the error says why it could not start or how it died.
result<int> run_command(const std::vector<std::string>& argv);

/// `argv` as the null-terminated array posix_spawn and exec take; it points into `argv`, which must outlive it.
std::vector<char*> exec_argv(const std::vector<std::string>& argv);

}  // namespace execbench
