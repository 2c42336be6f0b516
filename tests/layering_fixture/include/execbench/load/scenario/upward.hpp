#pragma once
// Allowed: core is below scenario.
#include "execbench/core/base.hpp"
// Refused: a floor may not include the one above it.
#include "execbench/load/suite/downward.hpp"
