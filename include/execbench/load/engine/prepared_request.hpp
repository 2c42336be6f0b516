#pragma once

#include "execbench/load/engine/target.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <string>
#include <utility>
#include <vector>

namespace execbench::load {

/// The same request as HTTP/2 sends it: pseudo-header values, the other headers (names in lower case, without the
/// connection-specific ones HTTP/2 forbids) and the body.
struct h2_request {
    std::string method;
    std::string scheme;
    std::string authority;
    std::string path;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

/// A request ready to send: its bytes (and its HTTP/2 form) are built once.
struct prepared_request {
    std::string bytes;
    std::string closing_bytes;  ///< the same request asking `Connection: close`: a connection's last
    unsigned weight = 1;
    h2_request h2;      ///< what an HTTP/2 connection submits instead of `bytes`
    std::string label;  ///< "METHOD path"
    duration from{};                   ///< in the mix from this long after the load starts
    duration until = duration::max();  ///< out of it from this long after
};

/// Builds the request bytes for `spec` against `t` (Host header, base path, Content-Length, keep-alive), and its
/// HTTP/2 form.
prepared_request prepare_request(const request_spec& spec, const target& t);

}  // namespace execbench::load
