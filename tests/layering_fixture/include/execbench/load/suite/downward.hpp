#pragma once
// Allowed: suite links scenario, and through it core.
#include "execbench/core/base.hpp"
#include "execbench/load/scenario/upward.hpp"
