#pragma once

#include "execbench/models/server.hpp"

#include <memory>

namespace execbench::models {

/// The `fiber` model: a stackful fiber (Boost.Context through `asio::spawn`) serves a connection's requests as
/// sequential code; fibers run M:N on `threads` carrier threads and every wait parks the fiber, not the carrier.
/// Between requests a connection waits for its next first byte without a fiber, so an idle connection holds no stack;
/// stacks (`protected_fixedsize_stack`: mmap'ed with a guard page) are pooled, so a fiber per request maps nothing.
std::unique_ptr<server> make_fiber_server(const server_context& context);

}  // namespace execbench::models
