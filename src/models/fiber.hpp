#pragma once

#include "execbench/models/server.hpp"

#include <memory>

namespace execbench::models {

/// The `fiber` model: one stackful fiber per connection (Boost.Context through `asio::spawn`), written as
/// sequential code; fibers run M:N on `threads` carrier threads and every wait parks the fiber, not the carrier.
/// Stacks come from `protected_fixedsize_stack`: mmap'ed with a guard page, so only touched pages become resident.
std::unique_ptr<server> make_fiber_server(const server_context& context);

}  // namespace execbench::models
