#pragma once

#include "execbench/load/engine/target.hpp"
#include "execbench/load/scenario/scenario.hpp"

#include <string>

namespace execbench::load {

/// A request ready to send: its bytes are built once.
struct prepared_request {
    std::string bytes;
    std::string closing_bytes;  ///< the same request asking `Connection: close`: a connection's last
    unsigned weight = 1;
    std::string label;  ///< "METHOD path"
    duration from{};                   ///< in the mix from this long after the load starts
    duration until = duration::max();  ///< out of it from this long after
};

/// Builds the request bytes for `spec` against `t` (Host header, base path, Content-Length, keep-alive).
prepared_request prepare_request(const request_spec& spec, const target& t);

}  // namespace execbench::load
