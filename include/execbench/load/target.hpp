#pragma once

#include "execbench/core/result.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// The server under test, resolved once before a run.
struct target {
    std::string url;                    ///< as given
    std::string host;                   ///< host name or address from the URL
    std::uint16_t port = 80;
    std::string host_header;            ///< value of the Host header
    std::string base_path;              ///< path prefix from the URL ("" when the URL has none)
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;  ///< resolved addresses, the first one is used
    bool local = false;                 ///< every resolved address is loopback
};

/// Parses and resolves `url`. Unless `allow_remote`, a target that does not resolve only to loopback addresses is
/// refused with a message that names the address and the --allow-remote flag.
result<target> resolve_target(std::string_view url, bool allow_remote);

}  // namespace execbench::load
