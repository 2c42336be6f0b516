#pragma once

#include "execbench/load/record/machine_record.hpp"

namespace execbench::load {

/// Reads the context of this process and machine.
machine_context collect_context();

}  // namespace execbench::load
