#pragma once

#include "execbench/core/result.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace execbench::load::detail {

/// A small response: status and body.
struct simple_response {
    int status = 0;
    std::string body;
};

/// One GET on a fresh connection, bounded by `timeout`; used for /health and /metrics, never on the load path.
result<simple_response> http_get(const boost::asio::ip::tcp::endpoint& ep, std::string_view host_header,
                                 std::string_view path, std::chrono::milliseconds timeout);

}  // namespace execbench::load::detail
