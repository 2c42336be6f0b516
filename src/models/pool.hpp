#pragma once

#include "execbench/models/server.hpp"

#include <memory>

namespace execbench::models {

/// The `pool` model: thread per request. A fixed pool of worker threads serves each request start to finish
/// with blocking calls (reads, writes, sleep, downstream call, wait for the offloaded result). Like Tomcat's NIO
/// connector, idle keep-alive connections are watched by one poller thread and queued for a worker only when a
/// request arrives; beyond `queue` waiting connections the poller answers 503 with Retry-After.
std::unique_ptr<server> make_pool_server(const server_context& context);

}  // namespace execbench::models
