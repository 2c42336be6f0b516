#pragma once

#include "execbench/core/result.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load::detail {

/// A small response: status and body.
struct simple_response {
    int status = 0;
    std::string body;
};

/// One request on a fresh connection, bounded by `timeout`; used for /health, /metrics and the pre-flight request,
/// never on the load path. The error says "connection refused" or "no answer within ..." in words.
result<simple_response> http_request(const boost::asio::ip::tcp::endpoint& ep, std::string_view host_header,
                                     std::string_view method, std::string_view path,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     const std::string& body, std::chrono::milliseconds timeout);

/// One GET through http_request.
result<simple_response> http_get(const boost::asio::ip::tcp::endpoint& ep, std::string_view host_header,
                                 std::string_view path, std::chrono::milliseconds timeout);

}  // namespace execbench::load::detail
