#pragma once

#include "execbench/models/server.hpp"

#include <memory>

namespace execbench::models {

/// The `coro` model: a C++20 coroutine (`asio::awaitable`) per connection, on one io_context per thread as `loop`.
/// A connection's requests are served by a `for (;;) { co_await read; cycle; co_await write; }` loop; every wait
/// suspends the coroutine, whose frame the compiler sized, and resumes it from its io_context. Nothing blocks a
/// thread except `/cpu`, which deliberately computes on it, as in `loop`.
std::unique_ptr<server> make_coro_server(const server_context& context);

}  // namespace execbench::models
