#pragma once
#include "execbench/load/scenario/upward.hpp"
