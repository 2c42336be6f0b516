#pragma once
// A twin of core/base.hpp's name on another floor, which the names rule refuses (names.cmake); its include is legal.
#include "execbench/core/base.hpp"
