#pragma once

#include "execbench/core/result.hpp"
#include "execbench/tls/client_context.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {
struct target;
}

namespace execbench::load::detail {

/// A small response: status and body.
struct simple_response {
    int status = 0;
    std::string body;
};

/// Where a small request goes: an address, the Host header's value and, for https, the TLS context and the name the
/// handshake sends.
struct request_peer {
    boost::asio::ip::tcp::endpoint endpoint;
    std::string host_header;
    const tls::client_context* tls = nullptr;  ///< null: cleartext
    std::string tls_host;

    /// The peer of target `t` (its first address).
    static request_peer of(const target& t);
};

/// One request on a fresh connection, bounded by `timeout` (TLS handshake included); used for /health, /metrics and
/// the pre-flight request, never on the load path. The error says "connection refused", "no answer within ..." or
/// "TLS handshake failed: ..." in words.
result<simple_response> http_request(const request_peer& peer, std::string_view method, std::string_view path,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     const std::string& body, std::chrono::milliseconds timeout);

/// One GET through http_request.
result<simple_response> http_get(const request_peer& peer, std::string_view path, std::chrono::milliseconds timeout);

}  // namespace execbench::load::detail
