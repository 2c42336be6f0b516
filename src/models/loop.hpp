#pragma once

#include "execbench/models/server.hpp"

#include <memory>

namespace execbench::models {

/// The `loop` model: one Asio io_context per thread, code in continuation-passing style (do_x/on_x callbacks).
/// Nothing blocks a loop thread except `/cpu`, which deliberately computes on it (the naive reactive handler).
std::unique_ptr<server> make_loop_server(const server_context& context);

}  // namespace execbench::models
